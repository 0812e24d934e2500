// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// Minimal ERC-20 surface the instance uses.
interface IERC20 {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title PropInstance: the treasury of one prop firm (docs/api.md §1 custody rules).
/// @notice Owned by the operator's multisig. Challenge deposits and operator collateral are paid
///         straight into it in one stablecoin; only the owner pays out, each payout id once. The
///         keccak256 of the firm's canonical challenge rules is committed here. Whoever deploys it
///         (the platform's gas-only deployer) has no privilege at all.
contract PropInstance {
    address public owner;
    address public pendingOwner;
    IERC20 public immutable stablecoin;
    bytes32 public immutable firmId;
    bytes32 public rulesHash;

    uint256 public totalDeposits;
    uint256 public totalCollateral;
    uint256 public totalPayouts;
    mapping(bytes32 => bool) public payoutExecuted;

    event RulesCommitted(bytes32 rulesHash);
    event ChallengeDeposit(bytes32 indexed propAccountId, address indexed payer, uint256 amount);
    event CollateralPosted(address indexed from, uint256 amount);
    event PayoutExecuted(bytes32 indexed payoutId, address indexed to, uint256 amount);
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner();
    error ZeroAddress();
    error NotAContract(address account);
    error ZeroAmount();
    error PayoutAlreadyExecuted(bytes32 payoutId);
    error TransferFailed();

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    constructor(address owner_, address stablecoin_, bytes32 firmId_, bytes32 rulesHash_) {
        if (owner_ == address(0) || stablecoin_ == address(0)) revert ZeroAddress();
        // The owner is the operator's multisig and the stablecoin a token: both already on chain.
        if (owner_.code.length == 0) revert NotAContract(owner_);
        if (stablecoin_.code.length == 0) revert NotAContract(stablecoin_);
        owner = owner_;
        stablecoin = IERC20(stablecoin_);
        firmId = firmId_;
        rulesHash = rulesHash_;
        emit OwnershipTransferred(address(0), owner_);
        emit RulesCommitted(rulesHash_);
    }

    /// @notice Pays a challenge deposit for `propAccountId` (keccak256 of the platform id) from the caller.
    function deposit(bytes32 propAccountId, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        totalDeposits += amount;
        emit ChallengeDeposit(propAccountId, msg.sender, amount);
        _pull(msg.sender, amount);
    }

    /// @notice Posts backing collateral from the caller (the operator).
    function postCollateral(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        totalCollateral += amount;
        emit CollateralPosted(msg.sender, amount);
        _pull(msg.sender, amount);
    }

    /// @notice Pays `amount` to `to` for `payoutId`; owner only, each payout id once.
    function payout(bytes32 payoutId, address to, uint256 amount) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        if (payoutExecuted[payoutId]) revert PayoutAlreadyExecuted(payoutId);
        payoutExecuted[payoutId] = true;
        totalPayouts += amount;
        emit PayoutExecuted(payoutId, to, amount);
        _push(to, amount);
    }

    /// @notice Commits new challenge rules; owner only.
    function setRulesHash(bytes32 rulesHash_) external onlyOwner {
        rulesHash = rulesHash_;
        emit RulesCommitted(rulesHash_);
    }

    /// @notice Starts handing the instance to `newOwner` (another multisig), who must accept.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        pendingOwner = newOwner;
        emit OwnershipTransferStarted(owner, newOwner);
    }

    /// @notice Completes a transfer started by {transferOwnership}.
    function acceptOwnership() external {
        if (msg.sender != pendingOwner) revert NotOwner();
        emit OwnershipTransferred(owner, msg.sender);
        owner = msg.sender;
        pendingOwner = address(0);
    }

    /// @notice The stablecoin balance held (deposits + collateral − payouts, plus anything sent directly).
    function treasury() external view returns (uint256) {
        return stablecoin.balanceOf(address(this));
    }

    function _pull(address from, uint256 amount) private {
        _call(abi.encodeCall(IERC20.transferFrom, (from, address(this), amount)));
    }

    function _push(address to, uint256 amount) private {
        _call(abi.encodeCall(IERC20.transfer, (to, amount)));
    }

    /// SafeERC20's rule: the call succeeds and returns true, or returns nothing from a contract.
    /// A token's own revert (e.g. insufficient allowance) is re-thrown as is.
    function _call(bytes memory data) private {
        (bool ok, bytes memory ret) = address(stablecoin).call(data);
        if (!ok) {
            if (ret.length == 0) revert TransferFailed();
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
        if (ret.length == 0 ? address(stablecoin).code.length == 0 : !abi.decode(ret, (bool))) revert TransferFailed();
    }
}

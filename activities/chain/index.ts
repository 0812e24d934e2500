/**
 * The chain layer of the prop firm (issue 6; docs/api.md §1 custody rules): viem clients, PropInstance
 * (deploy data, idempotent broadcast, reads, deposits), its rules hash, the owner Safe (typed data,
 * signatures, off-chain verification, execution, local creation) and the local TestStablecoin.
 * Units: token amounts are stablecoin base units as bigint (6 decimals: 1 USD = 1_000_000);
 * conversion to USD decimal strings lives in domain/prop/rules.ts. Pure functions (no RPC) are
 * marked "Pure" in their docs.
 */
export { artifact, type Artifact, type ContractName } from './artifacts.js';
export { chainClients, chainOf, publicClient, NonceConflictError, TxRevertedError, type ChainClients } from './clients.js';
export { canonicalJson, rulesHash } from './rules-hash.js';
export {
  depositChallenge,
  findPayoutExecution,
  payoutCall,
  postCollateral,
  predictInstanceAddress,
  propInstanceDeployData,
  readInstance,
  readPayoutExecuted,
  readTreasury,
  type InstanceArgs,
  type InstanceState,
} from './instance.js';
export { executeSafeTx, packSignatures, readSafe, readSafeNonce, SAFE_ABI, SAFE_TX_TYPES, safeCallOf, safeTxTypedData, signSafeTx, verifySafeAuthorization, type SafeCall, type SafeTxTypedData, type SafeVerdict } from './safe.js';
export { CREATE2_DEPLOYER, deployMultisig, deployMultisigWithReceipt, ensureSafeInfra, predictMultisigAddress, safeInfraAddresses, safeSetupData, type MultisigOptions, type SafeInfra } from './safe-deploy.js';
export { approveStablecoin, deployStablecoin, mintStablecoin, stablecoinBalance } from './stablecoin.js';
export { broadcastDeploy, deployContract, findTransactionBySenderAndNonce, sendContractCall, waitForReceipt, type MinedReceipt, type SentCall, type TxFees } from './tx.js';

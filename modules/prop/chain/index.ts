/**
 * The chain layer of the prop firm (docs/api.md §1 custody rules): viem clients, PropInstance
 * (deploy data, idempotent broadcast, reads, deposits), its rules hash, the owner Safe (typed data,
 * signatures, off-chain verification, execution, local creation) and the local TestStablecoin.
 * Units: token amounts are stablecoin base units as bigint (6 decimals: 1 USD = 1_000_000);
 * conversion to USD decimal strings lives in domain/prop/rules.ts. Pure functions (no RPC) are
 * marked "Pure" in their docs.
 */
export { artifact } from './artifacts.js';
export { chainClients, NonceConflictError, TxRevertedError } from './clients.js';
export { canonicalJson, rulesHash } from '../../../domain/prop/commitments.js';
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
} from './instance.js';
export {
  executeSafeTx,
  packSignatures,
  readSafe,
  readSafeNonce,
  SAFE_ABI,
  safeTxTypedData,
  signSafeTx,
  verifySafeAuthorization,
  type SafeTxTypedData,
} from './safe.js';
export { deployMultisig, deployMultisigWithReceipt, ensureSafeInfra } from './safe-deploy.js';
export { approveStablecoin, deployStablecoin, mintStablecoin, stablecoinBalance } from './stablecoin.js';
export { broadcastDeploy, sendContractCall, waitForReceipt } from './tx.js';

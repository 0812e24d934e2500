/** The chain layer of the prop firm (issue 6): PropInstance, its rules hash, and the owner Safe. */
export { artifact, type Artifact } from './artifacts.js';
export { canonicalJson, rulesHash } from './rules-hash.js';
export { findPayoutExecution, payoutCall, propInstanceDeployData, readInstance, type InstanceArgs, type InstanceState } from './instance.js';
export { packSignatures, readSafeNonce, SAFE_ABI, safeTxTypedData, signSafeTx, verifySafeAuthorization, type SafeCall, type SafeVerdict } from './safe.js';

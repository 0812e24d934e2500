/** Random ids of stored rows: `<prefix>_<hex>` (`usr_…`, `cred_…`, `agt_…`). Node's `crypto` only. */
import { randomBytes } from 'node:crypto';

/**
 * A new random id: `prefix`, `_`, then `bytes` random bytes (default 8) as lower-case hex (2 digits a byte).
 * Each kind of id keeps its prefix and length: they are stored and documented.
 */
export const newId = (prefix: string, bytes = 8): string => `${prefix}_${randomBytes(bytes).toString('hex')}`;

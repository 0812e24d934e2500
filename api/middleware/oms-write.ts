/**
 * What every OMS write shares (docs/api.md §4.4, §5.5, §8): the trader gate at the route's tier (writes
 * refuse a revoked credential) and `Idempotency-Key`, documented the same way on each route.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { OMS_WRITE_TIER, type OmsWrite } from '../../domain/gates.js';
import { gate } from './auth.js';
import { idempotency } from './idempotency.js';

/** The `Idempotency-Key` request header, as documented. */
export const IDEMPOTENCY_HEADER = {
  'Idempotency-Key':
    '8-200 characters; same key and payload within 24 h replays the stored response with Idempotency-Replay: true',
};

/** Endpoint parts of an OMS write route: gate, idempotency, documented header and tier. */
export function omsWrite(orm: MikroORM, route: OmsWrite) {
  return {
    gate: gate({ audience: 'trader', tier: OMS_WRITE_TIER[route], write: true }),
    use: [idempotency(orm)],
    headers: IDEMPOTENCY_HEADER,
    requires: OMS_WRITE_TIER[route],
  };
}

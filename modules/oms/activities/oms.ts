/**
 * OMS activities that are not venue-specific: record a composed intent, and the pre-dispatch
 * risk check (initial margin against the venue's available margin, docs/api.md §2.5).
 */
import type pg from 'pg';
import { Decimal, ZERO } from '../../../domain/decimal.js';
import { initialMargin, venueState } from '../../../domain/paper/account.js';
import type { IntentView } from '../../../domain/oms/intent.js';
import type { AccountBalanceRow, OrderIntentRow, PositionRow } from '../../../db/entities.js';
import type { MarkTick } from '../../../domain/market/types.js';
import { intentToView } from '../../../db/views.js';
import { appendEvents } from '../../../db/events.js';
import type { Sql } from '../../../db/sql.js';
import { readMark } from '../../../db/marks.js';
import {
  composedIntent,
  heldMarks,
  outcomeOf,
  venueReads,
  rejectIntent,
  withLockedIntent,
  recordIntentRow,
} from './ledger.js';
import type { RiskVerdict } from '../../../activities/types.js';
import type { ActivityMetrics } from '../../../activities/metrics.js';
import { verifyTypedData, type Hex } from 'viem';
import { signingRequestOf } from '../../../venues/self-signed.js';
import type { IntentWorkflowInput } from '../workflows/intent.definitions.js';

/**
 * What the OMS activities need; `pool` the worker's `pg` pool the ledger's transactions run on (db/sql.ts);
 * `venues.network` is the routed venues' signing network (a self-signed
 * routed intent's typed data depends on it); `metrics` counts risk rejections as terminal states (activities/metrics.ts).
 */
export interface OmsDeps {
  pool: pg.Pool;
  markMaxAgeMs: number;
  venues: { network: 'mainnet' | 'testnet' };
  metrics?: ActivityMetrics;
}

export function omsActivities(deps: OmsDeps) {
  const { markMaxAgeMs, venues, metrics } = deps;
  return {
    /**
     * Inserts the intent in `signed_pending_dispatch` with its `composed` event; a second call
     * for the same id returns the stored intent unchanged (idempotent). One statement on the ledger's pool
     * (db/sql.ts) under the account lock (ledger.ts `recordIntentRow`; a retry reads the stored intent in a transaction).
     */
    async recordIntent(input: IntentWorkflowInput): Promise<IntentView> {
      const { row, event } = composedIntent(input);
      // The intent and its event in one statement; a retry that finds the intent recorded inserts neither.
      const { recorded } = await recordIntentRow(deps, row, [event]);
      return intentToView(recorded);
    },

    /**
     * Verifies a self-signed intent's EIP-712 signature of its signing request (venues/self-signed.ts:
     * the venue's own typed data on a routed venue, else the paper one) against the signer address
     * registered on its credential (viem); when it matches, the intent moves to `signed_pending_dispatch`
     * and a routed intent keeps the signature its order is sent with. A wrong signature changes
     * nothing: `{ ok: false, reason: 'invalid_signature' }`.
     */
    async acceptSignature(intentId: string, signature: string): Promise<RiskVerdict> {
      return withLockedIntent(deps, intentId, async (tx, intent) => {
        if (intent.state !== 'intent_pending') return { ok: true };
        const [cred] = await tx.rows<{ signerAddress: string | null }>(
          `select signer_address as "signerAddress" from credentials where id = $1 and tenant_id = $2`,
          [intent.credentialId, intent.tenantId],
        );
        const signer = cred?.signerAddress?.toLowerCase();
        const { typedData } = signingRequestOf({ ...intent, intentId: intent.id }, venues.network);
        const valid =
          /^0x[0-9a-fA-F]{130}$/.test(signature) &&
          signer !== undefined &&
          (!intent.venueSigning || intent.venueSigning.signer.toLowerCase() === signer) &&
          (await verifyTypedData({
            ...(typedData as unknown as Omit<Parameters<typeof verifyTypedData>[0], 'address' | 'signature'>),
            address: signer as Hex,
            signature: signature as Hex,
          }).catch(() => false));
        if (!valid) return { ok: false, reason: 'invalid_signature' };
        if (intent.venueSigning) intent.venueSigning = { ...intent.venueSigning, signature };
        Object.assign(intent, { state: 'signed_pending_dispatch', lastEvent: 'signed', updatedAt: new Date() });
        await appendEvents(tx, intent.tenantId, intent.accountId, [
          { kind: 'intent.signed', frameType: 'Order-Intent-Update', venue: intent.venue, data: intentToView(intent) },
        ]);
        return { ok: true };
      });
    },

    /**
     * Pre-dispatch risk (see {@link riskInLock}) in its own transaction under the account lock. Rejection is recorded.
     */
    async checkRisk(intentId: string): Promise<RiskVerdict> {
      return withLockedIntent(
        deps,
        intentId,
        async (tx, intent) => (await riskInLock(tx, intent, markMaxAgeMs)).verdict,
        metrics,
      );
    },
  };
}

/**
 * What {@link riskInLock} decided and, for a paper order it passed, what it read under the lock, which the fill in
 * the same transaction uses instead of reading it again (issue 15): the order's mark, the account's positions on
 * the venue (every row, flat ones too), its balance row there (null: none yet), and the marks of the positions'
 * symbols keyed `<venue> <symbol>` (USD; a symbol without a stored mark is absent and valued at its entry).
 */
export interface RiskCheck {
  verdict: RiskVerdict;
  tick?: MarkTick;
  positions?: PositionRow[];
  balance?: AccountBalanceRow | null;
  marks?: Map<string, Decimal>;
}

/**
 * Pre-dispatch risk of `intent`, run inside {@link withLockedIntent}'s transaction (account and intent locked):
 * a fresh mark (at most `markMaxAgeMs` old) must exist (`no_mark`) and a paper order that can add exposure must fit
 * the venue's available margin, USD (`insufficient_margin`). A rejection is recorded on the intent. An intent
 * already past `signed_pending_dispatch` answers what was decided then (a retry).
 */
export async function riskInLock(tx: Sql, intent: OrderIntentRow, markMaxAgeMs: number): Promise<RiskCheck> {
  if (intent.state !== 'signed_pending_dispatch') {
    const o = outcomeOf(intent);
    return { verdict: o.state === 'rejected' ? { ok: false, reason: o.reason ?? 'rejected' } : { ok: true } };
  }
  // Routed venues hold the margin themselves (the venue refuses what the account cannot carry, 422 venue_rejected):
  // only the mark is read for them; a paper order's mark, positions and balance come in one statement.
  const paper = intent.venue === 'paper';
  const { tick, positions, balance } = paper
    ? await venueReads(tx, intent, markMaxAgeMs)
    : { tick: await readMark(tx, intent.venue, intent.symbol, markMaxAgeMs), positions: [], balance: null };
  if (!tick) {
    await rejectIntent(tx, intent, 'no_mark');
    return { verdict: { ok: false, reason: 'no_mark' } };
  }
  if (!paper) return { verdict: { ok: true } };
  // The other held symbols' marks in one statement, at any age (a position is valued at its entry without one).
  const { marks } = await heldMarks(tx, intent, positions, tick.mark);
  const state = venueState(
    new Decimal(balance?.balanceUsd ?? 0),
    positions.map((p) => ({
      qty: new Decimal(p.qty),
      avgEntryPrice: new Decimal(p.avgEntryPrice),
      mark: marks.get(`${p.venue} ${p.symbol}`) ?? new Decimal(p.avgEntryPrice),
      leverage: new Decimal(p.leverage),
    })),
  );
  const price = new Decimal(intent.price ?? intent.stopLimitPrice ?? intent.triggerPrice ?? tick.mark);
  const needed = initialMargin(new Decimal(intent.qty), price, new Decimal(intent.leverage), intent.reduceOnly);
  if (needed.gt(state.marginAvailableUsd) && needed.gt(ZERO)) {
    await rejectIntent(tx, intent, 'insufficient_margin');
    return { verdict: { ok: false, reason: 'insufficient_margin' } };
  }
  return { verdict: { ok: true }, tick, positions, balance, marks };
}

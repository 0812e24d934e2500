/**
 * Activities of flatten and reverse batches: plan the legs from the account's working orders and
 * positions, and cancel a working order through its own intent workflow (its `cancel` Update).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { Decimal } from '../../../domain/decimal.js';
import type { IntentState } from '../../../domain/oms/intent.js';
import { Credential, OrderIntent, Position } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { newIntent } from '../../../domain/oms/new-intent.js';
import { cancelUpdate, intentWorkflowId } from '../workflows/intent.definitions.js';
import type { BatchInput, BatchLeg, BatchPlan } from '../workflows/batch.definitions.js';

export interface BatchDeps {
  orm: MikroORM;
  temporal: Client;
}

export function batchActivities({ orm, temporal }: BatchDeps) {
  return {
    /**
     * Plans a batch: cancel legs for the working orders (of the symbol, for a reverse), a reduce-only
     * market close per open position, and for a reverse an opening market order of the same size on
     * the other side. Leg intent ids derive from the batch id, so a retried plan is the same plan.
     * @throws ApplicationFailure `invalid_state` (non-retryable) when a reverse finds no position.
     */
    async planBatch(input: BatchInput): Promise<BatchPlan> {
      const em = scoped(orm, input.tenantId);
      const bySymbol = input.symbol ? { symbol: input.symbol } : {};
      const working = await em.find(
        OrderIntent,
        { accountId: input.accountId, orderStatus: 'open', ...bySymbol },
        { orderBy: { createdAt: 'asc' } },
      );
      const positions = (
        await em.find(Position, { accountId: input.accountId, ...bySymbol }, { orderBy: { symbol: 'asc' } })
      ).filter((p) => !new Decimal(p.qty).isZero());
      if (input.kind === 'reverse' && positions.length === 0) {
        throw ApplicationFailure.create({
          type: 'invalid_state',
          message: `no open position in ${input.symbol} to reverse`,
          nonRetryable: true,
        });
      }
      // A wallet session (`wallet:<address>`, api/auth/session.ts) has no credential row and never self-signs.
      const cred = input.credentialId.startsWith('wallet:')
        ? null
        : await em.findOneOrFail(Credential, { id: input.credentialId });
      const legs: BatchLeg[] = working.map((w, i) => ({
        n: i + 1,
        action: 'cancel',
        intentId: w.id,
        symbol: w.symbol,
      }));
      const market = (action: 'close' | 'open', p: (typeof positions)[number]): BatchLeg => {
        const n = legs.length + 1;
        const qty = new Decimal(p.qty);
        const intentId = `int_${input.batchId.replace(/^bat_/, '')}_${n}`;
        const intent = newIntent(
          {
            intentId,
            tenantId: input.tenantId,
            accountId: input.accountId,
            credentialId: input.credentialId,
            clientOrderId: `${input.kind}-${input.batchId}-${n}`,
            venue: p.venue,
            symbol: p.symbol,
            side: qty.isPos() ? 'sell' : 'buy', // closing a long and opening the short are both sells
            type: 'market',
            qty: qty.abs().toFixed(),
            reduceOnly: action === 'close',
            timeInForce: 'Ioc',
            leverage: p.leverage,
          },
          { signing: cred?.signerAddress ? 'self' : 'platform', batchId: input.batchId, batchLeg: n },
        );
        return { n, action, intentId, symbol: p.symbol, intent };
      };
      for (const p of positions) legs.push(market('close', p));
      if (input.kind === 'reverse') for (const p of positions) legs.push(market('open', p));
      return { batchId: input.batchId, kind: input.kind, accountId: input.accountId, legs };
    },

    /**
     * Cancels a working order through its intent workflow; an order that has ended is left as it is.
     * An order not dispatched yet cannot be canceled yet: this fails retryably (`not_yet_working`)
     * and Temporal retries until it works or ends, so no order is left working behind a cancel.
     */
    async cancelWorkingOrder(intentId: string): Promise<IntentState> {
      try {
        return (await temporal.workflow.getHandle(intentWorkflowId(intentId)).executeUpdate(cancelUpdate)).state;
      } catch (err) {
        const refused =
          err instanceof WorkflowNotFoundError ||
          (err instanceof WorkflowUpdateFailedError &&
            (err.cause as ApplicationFailure | undefined)?.type === 'invalid_state');
        if (!refused) throw err;
        const row = await orm.em.fork().findOne(OrderIntent, { id: intentId }, { filters: false });
        const state = (row?.state ?? 'canceled') as IntentState;
        if (state === 'signed_pending_dispatch')
          throw ApplicationFailure.create({
            type: 'not_yet_working',
            message: `intent ${intentId} is not dispatched yet`,
            nonRetryable: false,
          });
        return state;
      }
    },
  };
}

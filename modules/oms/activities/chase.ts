/**
 * Activities of a chase: where the order stands against the touch, and a cancel-replace at a new
 * price through the order's own workflow (its `modify` Update).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { newIntent } from '../../../domain/oms/new-intent.js';
import { Mark, OrderIntent } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { intentWorkflowId, modifyUpdate } from '../workflows/intent.definitions.js';

export interface ChaseDeps {
  orm: MikroORM;
  temporal: Client;
}

/** Where a chased order stands: its state, whether it is working, its price and the touch (USD). */
export interface ChaseStep {
  state: string;
  working: boolean;
  price: string | null;
  touch: string | null;
}

export function chaseActivities({ orm, temporal }: ChaseDeps) {
  return {
    /** The order and the touch of its side: best bid for a buy, best ask for a sell. */
    async chaseStep(intentId: string): Promise<ChaseStep> {
      const em = platformEm(orm);
      const i = await em.findOneOrFail(OrderIntent, { id: intentId }, { filters: false });
      const mark = await em.findOne(Mark, { venue: i.venue, symbol: i.symbol });
      const touch = mark ? (i.side === 'buy' ? mark.bid : mark.ask) : null;
      return {
        state: i.state,
        working: i.orderStatus === 'open',
        price: i.price == null ? null : fmt(new Decimal(i.price)),
        touch: touch == null ? null : fmt(new Decimal(touch)),
      };
    },

    /**
     * Cancel-replaces a working order at `price` under the id `newIntentId` (idempotent: a retry
     * after success finds the replacement already there). False when the order stopped working.
     */
    async replaceWorkingOrder(intentId: string, newIntentId: string, price: string): Promise<boolean> {
      const em = platformEm(orm);
      if (await em.findOne(OrderIntent, { id: newIntentId }, { filters: false })) return true;
      const i = await em.findOneOrFail(OrderIntent, { id: intentId }, { filters: false });
      const replacement = newIntent({
        intentId: newIntentId,
        tenantId: i.tenantId,
        accountId: i.accountId,
        credentialId: i.credentialId,
        clientOrderId: i.clientOrderId,
        venue: i.venue,
        symbol: i.symbol,
        side: i.side as 'buy' | 'sell',
        type: i.type,
        qty: fmt(new Decimal(i.qty).minus(i.filledQty)),
        price,
        triggerPrice: i.triggerPrice,
        stopLimitPrice: i.stopLimitPrice,
        reduceOnly: i.reduceOnly,
        timeInForce: i.timeInForce,
        leverage: i.leverage,
      });
      try {
        await temporal.workflow
          .getHandle(intentWorkflowId(intentId))
          .executeUpdate(modifyUpdate, { args: [replacement] });
        return true;
      } catch (err) {
        const ended =
          err instanceof WorkflowNotFoundError ||
          (err instanceof WorkflowUpdateFailedError &&
            (err.cause as ApplicationFailure | undefined)?.type === 'invalid_state');
        if (ended) return false;
        throw err;
      }
    },
  };
}

/**
 * Activities of brackets: what a bracket protects — the parent intent's fill once the parent's
 * workflow has ended (waiting as long as it takes, heartbeating), or the open position.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { Decimal } from '../../../domain/decimal.js';
import { OrderIntent, Position } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { intentWorkflowId } from '../workflows/intent.definitions.js';

export interface BracketDeps {
  orm: MikroORM;
  temporal: Client;
}

/** The exposure a bracket protects: the side that opened it, its size (contracts) and leverage. */
export interface Exposure {
  side: 'buy' | 'sell';
  qty: string;
  leverage: string;
}

export function bracketActivities({ orm, temporal }: BracketDeps) {
  return {
    /**
     * With a parent intent: waits until its workflow ends (heartbeating every 5 s, so a worker crash
     * retries this wait elsewhere) and returns its filled size, or null when nothing filled.
     * Without: the open position in the symbol, or null when flat.
     */
    async exposureOf(parentIntentId: string | null, accountId: string, symbol: string): Promise<Exposure | null> {
      if (parentIntentId) {
        const ended = temporal.workflow.getHandle(intentWorkflowId(parentIntentId)).result();
        let done = false;
        void ended.finally(() => (done = true)).catch(() => undefined);
        while (!done) {
          Context.current().heartbeat();
          await Promise.race([ended.catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
        }
        await ended;
        const parent = await platformEm(orm).findOneOrFail(OrderIntent, { id: parentIntentId }, { filters: false });
        return new Decimal(parent.filledQty).gt(0)
          ? { side: parent.side as Exposure['side'], qty: parent.filledQty, leverage: parent.leverage }
          : null;
      }
      const p = await platformEm(orm).findOne(Position, { accountId, symbol }, { filters: false });
      const qty = new Decimal(p?.qty ?? 0);
      return p && !qty.isZero()
        ? { side: qty.isPos() ? 'buy' : 'sell', qty: qty.abs().toFixed(), leverage: p.leverage }
        : null;
    },
  };
}

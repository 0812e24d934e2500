/**
 * The venue's own order list of an account (docs/api.md §4.3 `/order-history`: "every order the venue
 * saw, including orders placed in the venue's own interface"): reads `adapter.orders()` with the
 * account's agent and upserts them into `venue_orders`, linking each to its platform intent by the
 * client order id the platform sent. Orders the platform never sent are `source = 'venue'`.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { OrderIntent } from '../../../db/entities.js';
import { platformEm } from '../../../db/orm.js';
import { isRouted } from '../../../domain/oms/intent.js';
import { currentAgent } from '../../../db/agent-wallets.js';
import { ADAPTERS } from '../../../venues/registry.js';
import { venueContext, type RoutedDeps } from './routed.js';

/** What a sync did: orders seen on the venue, and whether the account has a usable agent there. */
export interface VenueOrdersSync {
  venue: string;
  orders: number;
  agent: boolean;
}

export function venueOrderActivities(deps: RoutedDeps & { orm: MikroORM }) {
  return {
    /** Pulls the venue's orders of the account's owner into `venue_orders` (idempotent upsert). */
    async syncVenueOrders(accountId: string, venue: string): Promise<VenueOrdersSync> {
      if (!isRouted(venue)) return { venue, orders: 0, agent: false };
      const agent = await currentAgent(platformEm(deps.orm), accountId, venue);
      if (!agent || agent.status !== 'active') return { venue, orders: 0, agent: false };
      const orders = await ADAPTERS[venue].orders(venueContext(deps, agent));
      const em = platformEm(deps.orm);
      const intents = await em.find(
        OrderIntent,
        { accountId, venue, venueClientOrderId: { $ne: null } },
        { filters: false, fields: ['id', 'venueClientOrderId'] },
      );
      const byClientId = new Map(intents.map((i) => [i.venueClientOrderId!, i.id]));
      const conn = em.getConnection();
      for (const o of orders) {
        const intentId = o.clientOrderId ? (byClientId.get(o.clientOrderId) ?? null) : null;
        await conn.execute(
          `insert into venue_orders (account_id, venue, venue_order_id, tenant_id, client_order_id, intent_id, symbol, side, type, qty, price, status, filled_qty, avg_fill_price, source, updated_at, synced_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())
           on conflict (account_id, venue, venue_order_id) do update set status = excluded.status, filled_qty = excluded.filled_qty, avg_fill_price = excluded.avg_fill_price,
             intent_id = coalesce(venue_orders.intent_id, excluded.intent_id), source = case when coalesce(venue_orders.intent_id, excluded.intent_id) is null then 'venue' else 'platform' end,
             updated_at = excluded.updated_at, synced_at = now()`,
          [
            accountId,
            venue,
            o.venueOrderId,
            agent.tenantId,
            o.clientOrderId,
            intentId,
            o.symbol,
            o.side,
            o.type,
            o.qty,
            o.price,
            o.status,
            o.filledQty,
            o.avgFillPrice,
            intentId ? 'platform' : 'venue',
            new Date(o.updatedAt),
          ],
        );
      }
      return { venue, orders: orders.length, agent: true };
    },
  };
}

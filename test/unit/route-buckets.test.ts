/**
 * The API's one dispatch over every context's router (api/route-buckets.ts): a request reaches the same
 * route it would through the routers chained in order — literal paths, parameters, a route whose
 * prefix is a parameter, any letter case and a trailing slash — and a path with another method is 405.
 */
import { describe, expect, it } from 'vitest';
import Koa from 'koa';
import Router from '@koa/router';
import type { AddressInfo } from 'node:net';
import { routeBuckets } from '../../api/route-buckets.js';
import type { ApiState } from '../../api/context.js';

/** A router with prefix `prefix` whose routes answer their own name. */
const routerOf = (prefix: string, routes: [string, string][]) => {
  const r = new Router<ApiState>({ prefix });
  for (const [path, name] of routes) r.get(path, (ctx) => void (ctx.body = name));
  return r;
};

describe('route buckets', () => {
  it('routes each request as the chained routers would', async () => {
    const app = new Koa<ApiState>();
    app.use(
      routeBuckets([
        routerOf('', [['/healthz', 'health']]),
        routerOf('/api/v1/market', [
          ['/quotes/:venue/:symbol', 'quote'],
          ['/stats/:ticker', 'stats'],
        ]),
        routerOf('/api/v1', [
          ['/accounts/:id/state', 'state'],
          ['/:anything/echo', 'echo'],
        ]),
      ]),
    );
    // Past the routers, as the trading page does: GET only.
    app.use((ctx) => void (ctx.method === 'GET' && (ctx.body = 'fell through')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string, method = 'GET') => {
      const res = await fetch(`${base}${path}`, { method });
      return `${res.status} ${await res.text()}`;
    };
    try {
      expect(await get('/healthz')).toBe('200 health');
      expect(await get('/api/v1/market/quotes/paper/BTC.PAPER')).toBe('200 quote');
      expect(await get('/API/V1/Market/stats/BTC.HL')).toBe('200 stats');
      expect(await get('/api/v1/accounts/acc_1/state/')).toBe('200 state');
      // A route whose second segment is a parameter is in every bucket of its prefix.
      expect(await get('/api/v1/market/echo')).toBe('200 echo');
      expect(await get('/api/v1/accounts/echo')).toBe('200 echo');
      expect(await get('/api/v1/nothing/here')).toBe('200 fell through');
      expect(await get('/')).toBe('200 fell through');
      expect((await get('/api/v1/market/quotes/paper/BTC.PAPER', 'POST')).slice(0, 3)).toBe('405');
    } finally {
      server.close();
    }
  });
});

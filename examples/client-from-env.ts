/**
 * The client the examples run on (clients/typescript/, README "TypeScript client"): the API and credential from the
 * environment — `API_URL` (default `http://localhost:3000`), `TENANT` (the tenant slug), `API_KEY`, `API_SECRET` (a
 * `fullTrading` trader) — or, when `API_KEY` is unset, the demo trader `npm run dev` wrote to `.data/dev.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createClient, type MultivenueClient } from '@multivenue/client';

/** `.data/dev.json`'s fields the examples read (scripts/dev.ts `DevJson`). */
interface DevCredential {
  baseUrl: string;
  tenantSlug: string;
  trader: { apiKey: string; apiSecret: string };
}

/**
 * A client of the configured trader and its active account id (from the mint's answer).
 * @throws Error when neither `API_KEY`/`API_SECRET`/`TENANT` nor `.data/dev.json` is there; ApiError when the mint is refused.
 */
export async function exampleClient(): Promise<{ client: MultivenueClient; accountId: string }> {
  const env = process.env;
  const devFile = path.resolve(import.meta.dirname, '../.data/dev.json');
  let opts: { baseUrl: string; tenantSlug: string; apiKey: string; apiSecret: string };
  if (env.API_KEY) {
    if (!env.API_SECRET || !env.TENANT) throw new Error('set API_SECRET and TENANT with API_KEY');
    opts = {
      baseUrl: env.API_URL ?? 'http://localhost:3000',
      tenantSlug: env.TENANT,
      ...pick(env.API_KEY, env.API_SECRET),
    };
  } else if (existsSync(devFile)) {
    const dev = JSON.parse(readFileSync(devFile, 'utf8')) as DevCredential;
    opts = {
      baseUrl: env.API_URL ?? dev.baseUrl,
      tenantSlug: dev.tenantSlug,
      ...pick(dev.trader.apiKey, dev.trader.apiSecret),
    };
  } else throw new Error('set API_URL, TENANT, API_KEY and API_SECRET, or start the stack with `npm run dev`');
  const client = createClient(opts);
  const { accountId } = await client.tokens.mint();
  if (!accountId) throw new Error('the credential has no active account: use a trader key');
  return { client, accountId };
}

const pick = (apiKey: string, apiSecret: string) => ({ apiKey, apiSecret });

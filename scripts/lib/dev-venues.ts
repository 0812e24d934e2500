/**
 * `npm run dev` with `VENUE_MODE=sim` (the default offline): the four venue simulators on local
 * ports, matching against the platform's replayed marks, and the demo trader's agents on every
 * routed venue authorised the way a user does it (the API returns what to sign; the demo wallet
 * in `.data/demo-wallet-key` signs it; Kalshi registers the public key in the simulator's "web
 * interface"). Simulators keep their state in memory, so every start authorises fresh agents and
 * revokes the previous ones (agent addresses are never reused).
 */
import { startDevMarks } from './dev-marks.js';
import { ROUTED_VENUES, type RoutedVenue } from '../../venues/types.js';
import {
  startSimulators,
  userAuthorization,
  venueUser,
  type KalshiKeyPage,
  type Simulators,
} from '../../simulators/index.js';

/** One demo agent as `.data/dev.json` lists it. */
export interface DevAgent {
  agentId: string;
  agentAddress: string;
  owner: string;
}

/**
 * Starts the simulators pricing from the marks of the platform database at `databaseUrl`, held in memory and kept
 * current by its NOTIFY `marks` (scripts/lib/dev-marks.ts; read from PostgreSQL while that connection is down).
 * `stop()` stops the simulators, then the marks.
 */
export async function startDevSimulators(databaseUrl: string): Promise<Simulators> {
  const marks = await startDevMarks(databaseUrl);
  const sims = await startSimulators((venue) => (symbol) => marks.markOf(venue, symbol)).catch(async (err: unknown) => {
    await marks.stop();
    throw err;
  });
  return {
    ...sims,
    async stop() {
      await sims.stop();
      await marks.stop();
    },
  };
}

/** The fields of the API's answers {@link authorizeDemoAgents} reads (token mint, agent list, agent create, authorization); null when the body is not JSON. */
type AgentApiAnswer = {
  token: string;
  agents?: { agentId: string; status: string }[];
  agentId: string;
  agentAddress: string;
  authorization: Parameters<typeof userAuthorization>[2];
} | null;

/**
 * Authorises a fresh demo agent per routed venue for `accountId` through the running API
 * (`baseUrl`, tenant `tenantSlug`, the trader's `apiKey`/`apiSecret`), revoking older ones.
 * @throws Error naming the venue and the API's answer when a step fails.
 */
export async function authorizeDemoAgents(opts: {
  baseUrl: string;
  tenantSlug: string;
  apiKey: string;
  apiSecret: string;
  accountId: string;
  walletKey: `0x${string}`;
  sims: KalshiKeyPage;
}): Promise<Record<RoutedVenue, DevAgent>> {
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${opts.baseUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-tenant-slug': opts.tenantSlug,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as AgentApiAnswer };
  };
  const minted = await call('POST', '/api/auth/api-token', { apiKey: opts.apiKey, apiSecret: opts.apiSecret });
  if (minted.status !== 200)
    throw new Error(`demo agents: mint failed ${minted.status} ${JSON.stringify(minted.body)}`);
  const token = minted.body!.token;
  const existing = await call('GET', `/api/v1/accounts/${opts.accountId}/agents`, undefined, token);
  for (const a of existing.body?.agents ?? [])
    if (a.status !== 'revoked')
      await call('DELETE', `/api/v1/accounts/${opts.accountId}/agents/${a.agentId}`, undefined, token);
  const out = {} as Record<RoutedVenue, DevAgent>;
  for (const venue of ROUTED_VENUES) {
    const user = venueUser(venue, opts.walletKey);
    const created = await call(
      'POST',
      `/api/v1/accounts/${opts.accountId}/agents`,
      { venue, owner: user.owner },
      token,
    );
    if (created.status !== 201)
      throw new Error(`demo agents: ${venue} create failed ${created.status} ${JSON.stringify(created.body)}`);
    const signature = await userAuthorization(opts.sims, user, created.body!.authorization);
    const done = await call(
      'POST',
      `/api/v1/accounts/${opts.accountId}/agents/${created.body!.agentId}/authorization`,
      { signature },
      token,
    );
    if (done.status !== 200)
      throw new Error(`demo agents: ${venue} authorization failed ${done.status} ${JSON.stringify(done.body)}`);
    out[venue] = { agentId: done.body!.agentId, agentAddress: done.body!.agentAddress, owner: user.owner };
  }
  return out;
}

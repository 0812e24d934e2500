/**
 * `npm run dev`: the demo tenant's social sign-in (docs/api.md §5.1 "Social sign-in") against a real local OpenID
 * provider (simulators/oidc.ts) on `127.0.0.1:<OIDC_DEV_PORT>` (default 3010), with two demo users, and the email
 * magic link as the fallback (mail lands in the dev mailbox `.data/mail`). The demo tenant gets the providers
 * `demo-id` ("Demo ID", open join policy) and `email` once; the client secret is sealed with the dev key ring.
 */
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { parseKeyRing, seal } from '../../domain/custody/vault.js';
import { SigninProvider } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { DEFAULT_SCOPES } from '../../modules/auth/commands/signin-providers.js';
import { startOidcProvider, type RunningOidcProvider } from '../../simulators/oidc.js';

/** The dev provider's client at the local provider. */
const DEV_CLIENT = { clientId: 'platform-dev', clientSecret: 'dev-client-secret-not-for-production' };

/** The demo users of the dev provider (account id → user). */
const DEV_OIDC_USERS = {
  'demo-trader': { email: 'trader@demo.localhost', name: 'Demo Trader' },
  'demo-partner': { email: 'partner@partner.localhost', name: 'Partner Trader' },
};

/**
 * Starts the local provider for `origins` (the demo tenant's registered origins: each gets its callback registered)
 * and adds the demo tenant's `demo-id` and `email` sign-in providers when missing. `ringSpec`: the
 * AGENT_KEY_ENCRYPTION_KEYS the api runs with (seals the client secret).
 * @throws Error when the port is taken.
 */
export async function startDevOidc(opts: {
  orm: MikroORM;
  tenantId: string;
  origins: string[];
  ringSpec: string;
  port: number;
}): Promise<RunningOidcProvider> {
  const idp = await startOidcProvider({
    port: opts.port,
    clients: [{ ...DEV_CLIENT, redirectUris: opts.origins.map((o) => `${o}/api/auth/oidc/demo-id/callback`) }],
    users: DEV_OIDC_USERS,
  });
  const em = scoped(opts.orm, opts.tenantId);
  const id = () => `sip_${randomBytes(8).toString('hex')}`;
  const base = { tenantId: opts.tenantId, joinPolicy: 'open', emailDomains: [], enabled: true };
  const demo = await em.findOne(SigninProvider, { slug: 'demo-id' });
  if (demo) demo.issuer = idp.issuer;
  else
    em.create(SigninProvider, {
      ...base,
      id: id(),
      slug: 'demo-id',
      kind: 'oidc',
      displayName: 'Demo ID',
      issuer: idp.issuer,
      clientId: DEV_CLIENT.clientId,
      sealedClientSecret: seal(parseKeyRing(opts.ringSpec), DEV_CLIENT.clientSecret),
      scopes: DEFAULT_SCOPES,
    });
  if (!(await em.findOne(SigninProvider, { kind: 'email' })))
    em.create(SigninProvider, {
      ...base,
      id: id(),
      slug: 'email',
      kind: 'email',
      displayName: 'Email',
      issuer: null,
      clientId: null,
      sealedClientSecret: null,
      scopes: [],
    });
  await em.flush();
  return idp;
}

/**
 * A real OpenID provider on 127.0.0.1 for `npm run dev` (the demo tenant's "Sign in with Demo ID") and the tests
 * (test/support/oidc.ts): `oidc-provider` with its own RSA signing key (real signed ID tokens, a real JWKS at
 * `/jwks`, discovery at `/.well-known/openid-configuration`), authorisation code with PKCE required for every client,
 * and a sign-in page of its own at `/interaction/{uid}` that lists the demo users as buttons (no password: a
 * development provider). Choosing a user logs them in and grants the scopes asked for in one step; Cancel sends the
 * browser back to the client with `error=access_denied`, as a person declining at Google or Apple would.
 *
 * For the tests' hostile cases {@link RunningOidcProvider.tamper} rewrites the claims of the next ID tokens the token
 * endpoint issues and signs them again — with this provider's key, or with a foreign key (`signWith: 'foreign'`):
 * a wrong `nonce`, an expired `exp`, another `iss`, a bad signature, each a well-formed JWT the client must refuse.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, decodeJwt } from 'jose';
import Provider, { type Account } from 'oidc-provider';

/** A user of the dev provider: the account id is the ID token's `sub`. */
export interface OidcUser {
  email: string;
  emailVerified?: boolean;
  name: string;
}

/** A client registered at the dev provider (confidential, `client_secret_post`; PKCE S256 required). */
export interface OidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

/** Rewrites the claims of an issued ID token; `signWith: 'foreign'` signs it with a key the JWKS does not hold. */
export interface IdTokenTamper {
  claims(claims: Record<string, unknown>): Record<string, unknown>;
  signWith?: 'own' | 'foreign';
}

/** A running dev provider. */
export interface RunningOidcProvider {
  /** The issuer identifier (`http://127.0.0.1:<port>`, no trailing slash). */
  issuer: string;
  port: number;
  /** The users (account id → user); a user added here can sign in at once. */
  users: Record<string, OidcUser>;
  /** Rewrites the ID tokens the token endpoint issues until called again with null. */
  tamper(next: IdTokenTamper | null): void;
  stop(): Promise<void>;
}

/** An RSA signing key as a private JWK with its key id, and the KeyObject that signs with it. */
function signingKey(): { jwk: Record<string, unknown>; key: KeyObject; kid: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  return { jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }, key: privateKey, kid };
}

/** The sign-in page of an interaction: one button per user, and Cancel. */
function loginPage(issuer: string, uid: string, client: string, users: Record<string, OidcUser>): string {
  const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const buttons = Object.entries(users)
    .map(
      ([id, u]) =>
        `<button type="submit" name="user" value="${esc(id)}">Continue as ${esc(u.name)} (${esc(u.email)})</button>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Demo ID: sign in</title></head><body>
<h1>Demo ID</h1><p>${esc(client)} asks you to sign in (${esc(issuer)}).</p>
<form method="post" action="/interaction/${esc(uid)}/login">${buttons}</form>
<form method="post" action="/interaction/${esc(uid)}/abort"><button type="submit">Cancel</button></form></body></html>`;
}

/** Reads an `application/x-www-form-urlencoded` request body (at most 16 KiB). */
async function formOf(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16_384) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

/**
 * Starts the dev provider on `port` (0 or absent: a free port) of 127.0.0.1, issuer `issuer` (default
 * `http://127.0.0.1:<port>`), with `clients` and `users` (account id → user).
 * @throws Error when the port is taken.
 */
export async function startOidcProvider(opts: {
  port?: number;
  issuer?: string;
  clients: OidcClient[];
  users: Record<string, OidcUser>;
}): Promise<RunningOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = (opts.issuer ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  const own = signingKey();
  const foreign = signingKey();
  const users = opts.users;
  let tamper: IdTokenTamper | null = null;

  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    async findAccount(_ctx, id): Promise<Account | undefined> {
      const u = users[id];
      if (!u) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, email: u.email, email_verified: u.emailVerified ?? true, name: u.name }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    jwks: { keys: [own.jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true },
    conformIdTokenClaims: false, // the ID token carries email and name, as Google's and Apple's do
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  // The sign-in page, and the tests' ID token rewriting (module doc).
  provider.use(async (ctx, next) => {
    const page = /^\/interaction\/([\w-]+)(\/login|\/abort)?$/.exec(ctx.path);
    if (page && ctx.method === 'GET' && !page[2]) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = loginPage(issuer, details.uid, details.params.client_id, users);
      return;
    }
    if (page && ctx.method === 'POST' && page[2] === '/abort') {
      ctx.respond = false;
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { error: 'access_denied', error_description: 'the user cancelled the sign-in' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (page && ctx.method === 'POST' && page[2]) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      const accountId = (await formOf(ctx.req)).get('user') ?? '';
      if (!users[accountId]) {
        ctx.status = 400;
        ctx.body = `no user ${accountId}`;
        return;
      }
      const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope ?? 'openid');
      const grantId = await grant.save();
      ctx.respond = false;
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { login: { accountId }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && ctx.status === 200 && tamper && body?.id_token) {
      const signer = tamper.signWith === 'foreign' ? foreign : own;
      body.id_token = await new SignJWT(tamper.claims(decodeJwt(body.id_token)))
        .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
        .sign(signer.key);
    }
  });

  const handle = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void handle(req, res));
  return {
    issuer,
    port,
    users,
    tamper(next) {
      tamper = next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

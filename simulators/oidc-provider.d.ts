/** The part of `oidc-provider` (v9, ships no types) simulators/oidc.ts uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type Koa from 'koa';

  /** What `findAccount` answers: the account id and its claims for a use (`id_token`, `userinfo`) and scope. */
  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  /** A started interaction (`provider.interactionDetails`). */
  export interface Interaction {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, string | undefined> & { client_id: string; scope?: string };
  }

  /** A grant of scopes to a client for an account. */
  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  /** The provider's configuration (only the options simulators/oidc.ts sets). */
  export interface Configuration {
    clients: Record<string, unknown>[];
    findAccount(ctx: unknown, id: string): Promise<Account | undefined>;
    claims?: Record<string, string[]>;
    scopes?: string[];
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys: string[] };
    pkce?: { required: () => boolean };
    features?: Record<string, { enabled: boolean }>;
    interactions?: { url(ctx: unknown, interaction: Interaction): string };
    ttl?: Record<string, number>;
    conformIdTokenClaims?: boolean;
    renderError?(ctx: Koa.Context, out: Record<string, string>, error: Error): void;
  }

  /** An OpenID provider: itself a Koa application (v9). */
  export default class Provider extends Koa {
    constructor(issuer: string, configuration: Configuration);
    readonly issuer: string;
    Grant: new (init: { accountId: string; clientId: string }) => Grant;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}

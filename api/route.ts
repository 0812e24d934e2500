/**
 * One statement per endpoint (`routesOf`): registers the Koa route (gate → validate → handler), its OpenAPI
 * operation from the same zod schemas, and its row of the route table (`GET /api/v1/discovery`).
 *
 *     const route = routesOf(router, openapi, { tags, requires });
 *     route
 *       .get('/firms/:id', 'One firm', read)
 *       .input({ params: firmParams })
 *       .answers({ '200': { description: 'Firm', schema: firmView } })
 *       .handle(async (ctx, { params }) => { ctx.body = toFirmView(await firmOf(em(ctx), params.id)); });
 */
import Router from '@koa/router';
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import type { ApiContext, ApiDeps, ApiMiddleware, ApiState } from './context.js';
import type { Scope } from '../domain/gates.js';
import { callerEm, gateRule, operatorAccess } from './middleware/auth.js';
import { isTenantExempt } from './middleware/tenant.js';
import { errorBody, openApiPath, type OpenApiRegistry } from './openapi.js';
import { operationIdOf } from './operation-id.js';
import { validate, type Input, type RouteSchemas } from './middleware/validate.js';

/** An endpoint's definition. */
export interface Endpoint<S extends RouteSchemas> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  /** The stable OpenAPI `operationId`; derived from method and path when absent (api/operation-id.ts). */
  operationId?: string;
  tags: string[];
  /** Access rule middleware (from `gate()`), or none for public routes. */
  gate?: ApiMiddleware;
  schemas: S;
  /** An example request body, when the one composed from the body schema's examples (api/openapi-examples.ts) does not fit. */
  bodyExample?: unknown;
  /**
   * Responses: status → description and JSON body (documented only). An error status (4xx, 5xx) without a `schema`
   * has the error body `{ error, detail? }`; `types` lists the media types of a body that is not JSON (a CSV, a PDF);
   * `example`, an example JSON body when the one composed from the schema's examples does not fit.
   */
  responses: Record<
    string,
    { description: string; schema?: z.ZodType; types?: string[]; headers?: Record<string, string>; example?: unknown }
  >;
  /** Extra middleware after validation (e.g. idempotency). */
  use?: ApiMiddleware[];
  /** The tier or scope, for the docs (`x-required-tier`). */
  requires?: string;
  /** Request headers to document, name → description. */
  headers?: Record<string, string>;
}

/** Defines one endpoint on `router` and in `openapi` (its operation and its route-table row). */
function endpoint<S extends RouteSchemas>(
  router: Router<ApiState>,
  openapi: OpenApiRegistry,
  def: Endpoint<S>,
  handler: (ctx: ApiContext, input: Input<S>) => Promise<void>,
): void {
  const mws: ApiMiddleware[] = [...(def.gate ? [def.gate] : []), validate(def.schemas), ...(def.use ?? [])];
  router[def.method](def.path, ...(mws as never[]), async (ctx: ApiContext) =>
    handler(ctx, ctx.state.input as Input<S>),
  );

  const path = `${(router.opts as { prefix?: string }).prefix ?? ''}${def.path}`;
  const op: ZodOpenApiOperationObject = {
    operationId: def.operationId ?? operationIdOf(def.method, openApiPath(path)),
    summary: def.summary,
    tags: def.tags,
    ...(def.requires ? { 'x-required': def.requires } : {}),
    ...(def.gate ? {} : { security: publicSecurity(path) }),
    requestParams: {
      ...(def.schemas.params ? { path: def.schemas.params as never } : {}),
      ...(def.schemas.query ? { query: def.schemas.query as never } : {}),
    },
    ...(def.schemas.body
      ? {
          requestBody: {
            content: {
              'application/json': {
                schema: def.schemas.body,
                ...(def.bodyExample === undefined ? {} : { example: def.bodyExample }),
              },
            },
          },
        }
      : {}),
    responses: Object.fromEntries(
      Object.entries(def.responses).map(([status, r]) => [
        status,
        {
          description: r.description,
          ...content(status, r),
          ...(r.headers
            ? {
                headers: Object.fromEntries(
                  Object.entries(r.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }]),
                ),
              }
            : {}),
        },
      ]),
    ) as ZodOpenApiOperationObject['responses'],
  };
  if (def.headers) {
    (op as { parameters?: unknown[] }).parameters = Object.entries(def.headers).map(([name, description]) => ({
      in: 'header',
      name,
      description,
      schema: { type: 'string' },
    }));
  }
  openapi.add(def.method, path, op);
  const rule = def.gate ? gateRule(def.gate) : undefined;
  openapi.route({
    method: def.method.toUpperCase(),
    path,
    summary: def.summary,
    tags: def.tags,
    auth: Boolean(def.gate),
    audience: rule?.audience ?? null,
    tier: rule?.tier ?? null,
    scope: rule?.scope ?? null,
    requires: def.requires ?? null,
  });
}

/** What every route of one router shares: its OpenAPI `tags` and, on operator surfaces, the `x-required` tier or scope. */
export interface RouterDefaults {
  tags: string[];
  requires?: string;
}

/** The per-route options beyond path, summary, gate, input and answers (see {@link Endpoint}). */
export type RouteOptions = Partial<
  Pick<Endpoint<RouteSchemas>, 'operationId' | 'bodyExample' | 'use' | 'headers' | 'requires' | 'tags'>
>;

/**
 * One route being declared: `.input(schemas)` (path params, query, body), `.answers(responses)`, `.with(options)`,
 * then `.handle(handler)` registers it exactly as {@link endpoint} does.
 */
export class RouteDecl<S extends RouteSchemas> {
  constructor(
    private readonly router: Router<ApiState>,
    private readonly openapi: OpenApiRegistry,
    private readonly def: Endpoint<S>,
  ) {}

  /** The request schemas the route validates (and documents); the handler's input is typed by them. */
  input<T extends RouteSchemas>(schemas: T): RouteDecl<T> {
    return new RouteDecl(this.router, this.openapi, { ...this.def, schemas });
  }

  /** The documented answers, status → description and body (see {@link Endpoint.responses}). */
  answers(responses: Endpoint<S>['responses']): RouteDecl<S> {
    return new RouteDecl(this.router, this.openapi, {
      ...this.def,
      responses: { ...this.def.responses, ...responses },
    });
  }

  /** Options beyond the router's defaults (middleware after validation, documented headers, an example body…). */
  with(options: RouteOptions): RouteDecl<S> {
    return new RouteDecl(this.router, this.openapi, { ...this.def, ...options });
  }

  /** Registers the route on its router and in the OpenAPI document, `handler` answering it. */
  handle(handler: (ctx: ApiContext, input: Input<S>) => Promise<void>): void {
    endpoint(this.router, this.openapi, this.def, handler);
  }
}

/** The methods of {@link routesOf}: `(path, summary, gate?)` → a {@link RouteDecl} with nothing to validate yet. */
export type Routes = Record<
  Endpoint<RouteSchemas>['method'],
  (path: string, summary: string, gate?: ApiMiddleware) => RouteDecl<Record<never, never>>
>;

/**
 * Declares the routes of `router`, one statement each: `route.get(path, summary, gate?).input(…).answers(…).handle(…)`
 * (the router's prefix before `path`; `gate` absent on a public route). `defaults` apply to every route of it.
 */
export function routesOf(router: Router<ApiState>, openapi: OpenApiRegistry, defaults: RouterDefaults): Routes {
  const declare = (method: Endpoint<RouteSchemas>['method']) => (path: string, summary: string, gate?: ApiMiddleware) =>
    new RouteDecl(router, openapi, {
      method,
      path,
      summary,
      gate,
      schemas: {},
      responses: {},
      tags: defaults.tags,
      ...(defaults.requires ? { requires: defaults.requires } : {}),
    });
  return {
    get: declare('get'),
    post: declare('post'),
    put: declare('put'),
    patch: declare('patch'),
    delete: declare('delete'),
  };
}

/** The `content` of one documented response (see {@link Endpoint.responses}). */
function content(status: string, r: Endpoint<RouteSchemas>['responses'][string]) {
  const json = r.schema ?? (Number(status) >= 400 ? errorBody : undefined);
  const types = [
    ...(json ? ([['application/json', json]] as const) : []),
    ...(r.types ?? []).map((t) => [t, z.string()] as const),
  ];
  return types.length
    ? {
        content: Object.fromEntries(
          types.map(([t, schema]) => [
            t,
            { schema, ...(t === 'application/json' && r.example !== undefined ? { example: r.example } : {}) },
          ]),
        ),
      }
    : {};
}

/**
 * The `security` of a route without a gate: none on a tenant-exempt path (api/middleware/tenant.ts); else the
 * optional `tenant` scheme, `X-Tenant-Slug` or nothing (the Origin or Host then names the tenant).
 */
function publicSecurity(path: string): Record<string, string[]>[] {
  return isTenantExempt(path) ? [] : [{ tenant: [] }, {}];
}

/**
 * The set-up every operator surface's router repeats, for the routes guarded by one `scope`: the router
 * (prefix `/api/v1`), `route` (its {@link routesOf}, with the OpenAPI `tags` and the scope as `x-required`), the
 * gates of {@link operatorAccess} (`read`, `write`) and `em(ctx)`, a fresh unit of work in the caller's tenant
 * (docs/api.md §4.8).
 */
export function operatorSurface(deps: ApiDeps, openapi: OpenApiRegistry, scope: Scope, tags: string[]) {
  const router = new Router<ApiState>({ prefix: '/api/v1' });
  const { read, write, requires } = operatorAccess(scope);
  return {
    router,
    route: routesOf(router, openapi, { tags, requires }),
    read,
    write,
    em: (ctx: ApiContext) => callerEm(deps.orm, ctx),
  };
}

/**
 * Operations routes of the api (README "Operating it → Health and readiness", "→ Metrics"), outside
 * `/api/v1`, with no tenant and no authentication (api/middleware/tenant.ts exempts them):
 *
 * - `GET /healthz`: the process is alive: `200 { ok: true }`, touches nothing.
 * - `GET /readyz`: PostgreSQL and Temporal answer (infra/readiness.ts, 2 s each):
 *   `200 { ok: true, checks: { postgres: 'up', temporal: 'up' } }`, else
 *   `503 { error: 'not_ready', detail: 'temporal down: <reason>', checks }` naming each dependency down.
 * - `GET /metrics`: Prometheus text format 0.0.4 (api/ops/metrics.ts).
 */
import Router from '@koa/router';
import { z } from 'zod';
import type { ApiDeps, ApiState } from '../context.js';
import type { OpenApiRegistry } from '../openapi.js';
import { routesOf } from '../route.js';
import { readinessAnswer } from '../../infra/readiness.js';

const tags = ['operations'];
const checks = z
  .record(z.string(), z.enum(['up', 'down']))
  .meta({ description: 'Each dependency: `postgres`, `temporal`' });

export function opsRoutes(deps: Pick<ApiDeps, 'metrics' | 'readiness'>, openapi: OpenApiRegistry): Router<ApiState> {
  const router = new Router<ApiState>();

  const route = routesOf(router, openapi, { tags });

  route
    .get('/healthz', 'Liveness: the process answers (no dependency is touched)')
    .answers({ '200': { description: 'Alive', schema: z.object({ ok: z.literal(true) }) } })
    .handle(async (ctx) => {
      ctx.body = { ok: true };
    });

  route
    .get('/readyz', 'Readiness: PostgreSQL and Temporal answer within 2 s each')
    .answers({
      '200': { description: 'Ready', schema: z.object({ ok: z.literal(true), checks }) },
      '503': {
        description: '`not_ready`; `detail` names each dependency down and why',
        schema: z.object({ error: z.literal('not_ready'), detail: z.string(), checks }),
      },
    })
    .handle(async (ctx) => {
      const { status, body } = readinessAnswer(await deps.readiness());
      ctx.status = status;
      ctx.body = body;
    });

  route
    .get('/metrics', 'Prometheus metrics of this api process (text format 0.0.4); keep it off the public internet')
    .answers({ '200': { description: 'Prometheus text exposition', types: ['text/plain'] } })
    .handle(async (ctx) => {
      ctx.set('Content-Type', deps.metrics.registry.contentType);
      ctx.body = await deps.metrics.registry.metrics();
    });

  return router;
}

/** The response schema of `GET /api/v1/discovery` (docs/api.md §4.2, §9; api/presenters/discovery.ts), documented in the OpenAPI document. */
import { z } from 'zod';

/** One row of the route table (api/openapi.ts `RouteEntry`, `summary` as `description`). */
const endpointEntry = z.object({
  method: z.string(),
  path: z.string().meta({ description: 'OpenAPI form, `/a/{id}`' }),
  description: z.string(),
  tags: z.array(z.string()),
  auth: z.boolean().meta({ description: 'The route needs a caller' }),
  audience: z.string().nullable(),
  tier: z.string().nullable(),
  scope: z.string().nullable(),
  requires: z.string().nullable(),
});

export const discoveryView = z
  .object({
    name: z.string(),
    version: z.string(),
    auth: z.object({ mintBearer: z.string(), revokeBearer: z.string(), bootstrap: z.string() }),
    streams: z.array(z.object({ channel: z.string(), url: z.string(), auth: z.string(), topics: z.array(z.string()) })),
    openapi: z.string(),
    asyncapi: z.string(),
    docs: z.object({ openapi: z.string(), asyncapi: z.string() }),
    endpoints: z.array(endpointEntry),
  })
  .meta({ id: 'Discovery' });

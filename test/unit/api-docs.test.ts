/**
 * The committed API documents (docs/openapi.json, docs/asyncapi.json; docs/api.md points readers
 * to them) are exactly what the api serves at `GET /api/v1/openapi.json` and
 * `GET /api/v1/asyncapi.json`: both are regenerated in-process from the real Koa app and compared
 * byte for byte, so a route or frame change without `npm run docs:api` fails here.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_DOC_FILES, REPO_ROOT, buildApiDocuments, type ApiDocuments } from '../../scripts/export-api-docs.js';

let served: ApiDocuments;
beforeAll(async () => {
  served = await buildApiDocuments();
});

describe('committed API documents', () => {
  for (const kind of ['openapi', 'asyncapi'] as const) {
    it(`${API_DOC_FILES[kind]} equals what the api serves`, async () => {
      const committed = await readFile(path.join(REPO_ROOT, API_DOC_FILES[kind]), 'utf8');
      expect(served[kind], `${API_DOC_FILES[kind]} is stale: run \`npm run docs:api\` and commit the result`).toBe(
        committed,
      );
    });
  }

  it('the OpenAPI document is OpenAPI 3.1 with the compose route, the AsyncAPI document lists the three channels', () => {
    const openapi = JSON.parse(served.openapi);
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.servers).toMatchObject([
      { url: '{origin}', variables: { origin: { default: 'http://localhost:3000' } } },
    ]);
    expect(Object.keys(openapi.paths['/api/v1/oms/intents'])).toEqual(expect.arrayContaining(['get', 'post']));
    const asyncapi = JSON.parse(served.asyncapi);
    expect(asyncapi.asyncapi).toBe('3.0.0');
    expect(
      Object.values(asyncapi.channels)
        .map((c: any) => c.address)
        .sort(),
    ).toEqual(['/ws/market', '/ws/quotes', '/ws/risk']);
  });

  it('every operation has a unique operationId, in the trader vocabulary for the OMS', () => {
    const openapi = JSON.parse(served.openapi);
    const ids = Object.values(openapi.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId));
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(openapi.paths['/api/v1/oms/intents'].post.operationId).toBe('composeIntent');
    expect(openapi.paths['/api/v1/accounts/{id}/state'].get.operationId).toBe('getAccountState');
  });

  it('the OpenAPI document declares the bearer, session cookie and tenant header schemes', () => {
    const openapi = JSON.parse(served.openapi);
    expect(Object.keys(openapi.components.securitySchemes).sort()).toEqual(['bearer', 'session', 'tenant']);
    expect(openapi.components.securitySchemes.session).toMatchObject({ in: 'cookie', name: 'service_session' });
    expect(openapi.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(openapi.paths['/healthz'].get.security).toEqual([]);
    // A public route of a tenant: X-Tenant-Slug, or nothing (the Origin or Host names the tenant).
    expect(openapi.paths['/api/branding'].get.security).toEqual([{ tenant: [] }, {}]);
  });

  it('the OpenAPI document describes every tag its operations carry, and a redirect-only route has a catch-all', () => {
    const openapi = JSON.parse(served.openapi);
    const described = new Map(openapi.tags.map((t: { name: string; description: string }) => [t.name, t.description]));
    const used = new Set(
      Object.values(openapi.paths).flatMap((ops: any) => Object.values(ops).flatMap((op: any) => op.tags)),
    );
    expect([...used].filter((t) => !described.get(t))).toEqual([]);
    expect(described.size).toBe(used.size);
    expect(Object.keys(openapi.paths['/api/auth/email/verify'].get.responses)).toEqual(
      expect.arrayContaining(['302', 'default']),
    );
  });
});

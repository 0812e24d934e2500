/**
 * Examples of the OpenAPI document (issue 20): every JSON request body and every 2xx JSON response of the document
 * the api serves has an `example` (api/openapi-examples.ts composes them from the zod schemas' examples), and every
 * example in the document (media types, parameters, schemas) validates against its schema with the contract's
 * strictness (test/support/contract.ts: ajv 2020 + formats, objects closed against undocumented fields).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApiDocuments } from '../../scripts/export-api-docs.js';
import { schemaValidator } from '../support/contract.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

let doc: Json;
let validate: (schema: unknown, value: unknown) => string;
beforeAll(async () => {
  doc = JSON.parse((await buildApiDocuments()).openapi) as Json;
  validate = schemaValidator(doc);
});

/** Every operation of the document as `[where, operation]`, `where` = `METHOD /path (operationId)`. */
function operations(): [string, Json][] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, Json] => [
      `${method.toUpperCase()} ${path} (${String((op as Json).operationId)})`,
      op as Json,
    ]),
  );
}

/** The JSON media types of an operation that must carry an example: its request body and its 2xx responses. */
function exemplified(op: Json): [string, Json][] {
  const body = isObject(op.requestBody) ? (op.requestBody.content as Json) : {};
  const media: [string, Json][] = Object.entries(body).map(([t, m]) => [`request ${t}`, m as Json]);
  for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
    if (!status.startsWith('2')) continue;
    for (const [t, m] of Object.entries((r.content ?? {}) as Json)) media.push([`${status} ${t}`, m as Json]);
  }
  return media.filter(([what]) => /application\/(.+\+)?json$/.test(what));
}

/** Every `example` sitting beside a schema in the document: schemas, media types, parameters; as `[where, schema, example]`. */
function allExamples(
  node: unknown,
  where: string,
  out: [string, unknown, unknown][] = [],
): [string, unknown, unknown][] {
  if (Array.isArray(node)) node.forEach((n, i) => allExamples(n, `${where}/${i}`, out));
  if (!isObject(node)) return out;
  if ('example' in node) {
    const isSchema = !('schema' in node);
    out.push([where, isSchema ? node : node.schema, node.example]);
  }
  for (const [k, v] of Object.entries(node)) if (k !== 'example') allExamples(v, `${where}/${k}`, out);
  return out;
}

describe('OpenAPI examples', () => {
  it('every JSON request body and 2xx JSON response has an example', () => {
    const missing = operations().flatMap(([where, op]) =>
      exemplified(op)
        .filter(([, media]) => !('example' in media) && !('examples' in media))
        .map(([what]) => `${where}: ${what}`),
    );
    expect(missing).toEqual([]);
    expect(operations().flatMap(([, op]) => exemplified(op)).length).toBeGreaterThan(200);
  });

  it('every example in the document validates against its schema', () => {
    const found = [
      ...allExamples(doc.paths, '#/paths'),
      ...allExamples((doc.components as Json).schemas, '#/components/schemas'),
    ];
    const invalid = found
      .map(([where, schema, example]) => [where, validate(schema, example)] as const)
      .filter(([, errors]) => errors)
      .map(([where, errors]) => `${where}\n${errors}`);
    expect(invalid, invalid.join('\n\n')).toEqual([]);
    expect(found.length).toBeGreaterThan(200);
  });

  it('the compose request and answer show realistic trading values', () => {
    const compose = (doc.paths as Record<string, Record<string, Json>>)['/api/v1/oms/intents'].post;
    const body = ((compose.requestBody as Json).content as Record<string, Json>)['application/json'].example as Json;
    expect(body).toMatchObject({
      venue: expect.any(String),
      symbol: expect.stringMatching(/\./),
      qty: expect.any(String),
    });
  });
});

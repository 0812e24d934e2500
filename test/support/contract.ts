/**
 * The API's documents as the tests' contract (issue 20, "Docs proven true"): every answer the tests' HTTP helpers
 * receive (test/support/stack.ts `call`, test/support/http.ts `processCaller`) is checked against the OpenAPI 3.1
 * document the api serves, and every WebSocket frame the socket helpers receive (test/support/ws.ts) against the
 * AsyncAPI 3.0 document. Both are built in-process by the code the api serves them with (scripts/export-api-docs.ts
 * `buildApiDocuments`, api/asyncapi.ts `asyncApiDocument`), so a route or frame change is checked before
 * `npm run docs:api` writes the committed copies.
 *
 * An answer passes when its route has an operation (method and path template; the query string is ignored), its
 * status is one the operation lists, and its body is what that status documents: a JSON body validates against the
 * `application/json` schema (ajv, JSON Schema 2020-12, formats on); another body has a documented media type; a
 * status documenting no content has no JSON body. The check is strict: an object schema that lists `properties`
 * and says nothing of extra ones is compiled closed (`additionalProperties: false`; `unevaluatedProperties: false`
 * where `allOf`, `anyOf`, `oneOf` or `$ref` sit beside its properties, whose members are then left open), so an
 * undocumented field fails. Paths outside the document are skipped only when {@link UNDOCUMENTED_PATHS} names them;
 * a request no operation takes may only get the router's `404 not_found` or `405 method_not_allowed` ({@link UNROUTED}).
 *
 * A frame passes when its `type` names a message the channel's `receive` operation lists and it validates against
 * that message's payload (the same strictness).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { inject } from 'vitest';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { DOCS_BASE_URL, buildApiDocuments } from '../../scripts/export-api-docs.js';
import { asyncApiDocument } from '../../api/asyncapi.js';

/** A JSON Schema (or any JSON object of the documents), read as it comes. */
type Json = Record<string, unknown>;

/**
 * Paths the OpenAPI document does not describe, each with why; an answer to one is not checked (and counted as
 * skipped). Anything else missing from the document fails.
 */
const UNDOCUMENTED_PATHS: readonly { path: RegExp; why: string }[] = [
  {
    path: /^\/api\/v1\/(openapi|asyncapi)\.json$/,
    why: 'the documents themselves (api/routes/openapi.ts, asyncapi.ts)',
  },
  { path: /^\/docs(\/.*)?$/, why: 'the HTML reference site (api/routes/docs-site.ts)' },
  { path: /^\/(?!api\/|ws\/|healthz$|readyz$|metrics$)/, why: 'the trading page and its assets (api/web.ts)' },
];

/**
 * The answers of api/middleware/errors.ts to a request no operation takes, by status: `404 not_found` to a path
 * no operation has, `405 method_not_allowed` to a method a documented path does not take; each an `Error` body.
 */
const UNROUTED: Record<number, { error: string; pathKnown: boolean }> = {
  404: { error: 'not_found', pathKnown: false },
  405: { error: 'method_not_allowed', pathKnown: true },
};

/** The compiled `Error` schema of the document (`{ error, detail? }`). */
const errorSchema = (ajv: Ajv2020) => ajv.getSchema(`${DOC_ID}#/$defs/strict/Error`)!;

/** A contract violation: the message names the request, the operation, the status and what is wrong. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** What a run checked in this process, written to the run's tally (test/support/global-setup.ts prints the sum). */
const tally = { responses: 0, frames: 0, skipped: 0 };
/** This process's tally file (one per process, rewritten at most every {@link TALLY_MS}), once known. */
let tallyFile: string | null | undefined;
let tallyTimer: NodeJS.Timeout | undefined;
const TALLY_MS = 250;

/** Counts one check and schedules the write of this process's tally (none outside a vitest run). */
function count(kind: keyof typeof tally): void {
  tally[kind]++;
  if (tallyFile === undefined) {
    try {
      tallyFile = path.join(inject('contractTally'), `${process.pid}-${randomBytes(4).toString('hex')}.json`);
    } catch {
      tallyFile = null; // a script using the helpers outside vitest: nothing to tally into
    }
  }
  if (!tallyFile || tallyTimer) return;
  const file = tallyFile;
  tallyTimer = setTimeout(() => {
    tallyTimer = undefined;
    writeFileSync(`${file}.tmp`, JSON.stringify(tally));
    renameSync(`${file}.tmp`, file); // whole or not at all: the run's teardown may read it any time
  }, TALLY_MS).unref();
}

/** Keywords holding one subschema, one array of subschemas, or a map of names to subschemas (JSON Schema 2020-12). */
const ONE = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'not', 'if', 'then', 'else'];
const MANY = ['anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
const ONE_MORE = ['contains', 'propertyNames'];

/** Where the OpenAPI components are compiled: `<DOC_ID>#/$defs/{strict,open}/<name>`. */
const DOC_ID = 'https://contract.test/openapi.json';

/**
 * A copy of `schema` made strict (see the module header), with `#/components/schemas/<name>` refs pointing at the
 * compiled components. `open`: leave this node's own object open (an `allOf` member; its parent closes).
 */
function tighten(schema: unknown, open = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => tighten(s));
  if (!schema || typeof schema !== 'object') return schema;
  const src = schema as Json;
  const out: Json = {};
  const ownProperties = src.properties !== undefined;
  for (const [k, v] of Object.entries(src)) {
    if (k === '$ref' && typeof v === 'string')
      out[k] = v.replace(/^#\/components\/schemas\//, `${DOC_ID}#/$defs/${open ? 'open' : 'strict'}/`);
    else if (ONE.includes(k) || ONE_MORE.includes(k)) out[k] = typeof v === 'boolean' ? v : tighten(v);
    else if (MANY.includes(k)) out[k] = (v as unknown[]).map((s) => tighten(s, ownProperties));
    else if (k === 'allOf') out[k] = (v as unknown[]).map((s) => tighten(s, true));
    else if (MAP.includes(k))
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, tighten(s)]));
    else out[k] = v;
  }
  const composed = ['allOf', 'anyOf', 'oneOf', '$ref'].some((k) => k in src);
  const says = ['additionalProperties', 'unevaluatedProperties', 'patternProperties'].some((k) => k in src);
  if (!open && !says && (ownProperties || 'allOf' in src)) {
    if (composed) out.unevaluatedProperties = false;
    else out.additionalProperties = false;
  }
  return out;
}

/** A new ajv for the documents: 2020-12, all errors, formats checked, OpenAPI's annotation keywords known. */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
  formats.default(ajv); // the CommonJS plugin's `default`, as NodeNext types its default import
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  return ajv;
}

/** One documented response: its media types, each with its schema (JSON only) compiled on first use. */
interface DocumentedResponse {
  content: Record<string, { schema?: unknown; validate?: ValidateFunction }>;
}

/** One operation of the OpenAPI document and the concrete paths it answers. */
interface Operation {
  id: string;
  method: string;
  template: string;
  match: RegExp;
  /** Literal path segments: the most literal template wins (`/brackets/attach` over `/brackets/{bracketId}`). */
  literals: number;
  responses: Record<string, DocumentedResponse>;
}

/** The compiled OpenAPI document. */
interface HttpContract {
  ajv: Ajv2020;
  operations: Operation[];
}

/** A `/a/{id}` template as a regular expression of the concrete paths it answers. */
function templateRegExp(template: string): RegExp {
  const escaped = template.split(/\{[^}]+\}/).map((lit) => lit.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]+')}$`);
}

/** Compiles the OpenAPI document (see the module header). */
function compileOpenApi(doc: Json): HttpContract {
  const ajv = newAjv();
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  const defs = (open: boolean) =>
    Object.fromEntries(Object.entries(components).map(([name, s]) => [name, tighten(s, open)]));
  ajv.addSchema({ $id: DOC_ID, $defs: { strict: defs(false), open: defs(true) } });
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      const responses = Object.fromEntries(
        Object.entries(op.responses as Record<string, Json>).map(([status, r]) => [
          status,
          {
            content: Object.fromEntries(
              Object.entries((r.content ?? {}) as Record<string, Json>).map(([type, m]) => [
                type,
                { schema: m.schema },
              ]),
            ),
          },
        ]),
      );
      operations.push({
        id: String(op.operationId),
        method: method.toUpperCase(),
        template,
        match: templateRegExp(template),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        responses,
      });
    }
  }
  return { ajv, operations };
}

let httpContract: Promise<HttpContract> | undefined;

/** The OpenAPI contract, built once per test process from the real app (scripts/export-api-docs.ts). */
function openApi(): Promise<HttpContract> {
  return (httpContract ??= buildApiDocuments().then((d) => compileOpenApi(JSON.parse(d.openapi) as Json)));
}

/** An answer as a test helper received it. */
export interface Exchange {
  method: string;
  /** The request path, with or without its query string. */
  path: string;
  status: number;
  /** The `Content-Type` header, if any. */
  contentType: string | null;
  /** The body: the parsed JSON when the answer is JSON, else its text (`''` when empty). */
  body: unknown;
}

/** ajv's errors as lines `<instance path> <message> <detail>`, at most 12. */
function errorLines(errors: ErrorObject[] | null | undefined): string {
  const detail = (e: ErrorObject) => {
    const p = e.params as Record<string, unknown>;
    const named = p.additionalProperty ?? p.unevaluatedProperty ?? p.allowedValue ?? p.allowedValues ?? p.format;
    return named === undefined ? '' : `: ${JSON.stringify(named)}`;
  };
  const lines = (errors ?? []).map((e) => `  ${e.instancePath || '/'} ${e.message ?? e.keyword}${detail(e)}`);
  return [...new Set(lines)].slice(0, 12).join('\n');
}

/** The first `max` characters of a body's JSON. */
function trimmed(body: unknown, max = 1200): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(none)' : text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** The media type of a `Content-Type` header (`application/json; charset=utf-8` → `application/json`). */
const mediaType = (contentType: string | null) => contentType?.split(';')[0].trim().toLowerCase() ?? '';
const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

/**
 * Checks one answer against the OpenAPI document (see the module header) and counts it.
 * @throws ContractViolation naming the request, the operation id, the status, ajv's errors with their instance
 *   paths and the trimmed body, when the route, the status or the body is not what the document says.
 */
export async function checkResponse(ex: Exchange): Promise<void> {
  const path = ex.path.split('?')[0];
  if (UNDOCUMENTED_PATHS.some((u) => u.path.test(path))) return count('skipped');
  const { ajv, operations } = await openApi();
  const request = `${ex.method.toUpperCase()} ${path}`;
  const fail = (what: string) => {
    throw new ContractViolation(`contract: ${request} answered ${ex.status}: ${what}\nbody: ${trimmed(ex.body)}`);
  };
  const op = operations
    .filter((o) => o.method === ex.method.toUpperCase() && o.match.test(path))
    .sort((a, b) => b.literals - a.literals)[0];
  if (!op) {
    const pathKnown = operations.some((o) => o.match.test(path));
    const code = UNROUTED[ex.status];
    const answer = ex.body as { error?: unknown } | undefined;
    if (code && code.pathKnown === pathKnown && answer?.error === code.error && errorSchema(ajv)(ex.body))
      return count('responses');
    return fail(
      pathKnown
        ? `the OpenAPI document has no ${ex.method.toUpperCase()} operation on this path (only 405 method_not_allowed may answer)`
        : 'no operation of the OpenAPI document answers this path (only 404 not_found may answer)',
    );
  }
  const where = `${op.id} (${op.method} ${op.template})`;
  const documented =
    op.responses[String(ex.status)] ?? op.responses[`${String(ex.status)[0]}XX`] ?? op.responses.default;
  if (!documented)
    return fail(`${where} does not document status ${ex.status} (documents ${Object.keys(op.responses).join(', ')})`);
  const type = mediaType(ex.contentType);
  const media = documented.content[type];
  const hasBody = ex.body !== undefined && ex.body !== '';
  if (!media) {
    if (!hasBody && Object.keys(documented.content).length === 0) return count('responses');
    return fail(
      `${where} documents ${Object.keys(documented.content).join(', ') || 'no body'} for ${ex.status}, not ${type || 'a body without Content-Type'}`,
    );
  }
  if (isJson(type) && media.schema !== undefined) {
    media.validate ??= ajv.compile(tighten(media.schema) as Json);
    if (!media.validate(ex.body))
      return fail(`the body is not ${where}'s documented ${ex.status} schema:\n${errorLines(media.validate.errors)}`);
  }
  count('responses');
}

/** The compiled AsyncAPI document: per channel address, the server frames by `type`. */
let framesContract: Map<string, Map<string, ValidateFunction>> | undefined;

/** The AsyncAPI contract, built once per test process from api/asyncapi.ts. */
function asyncApi(): Map<string, Map<string, ValidateFunction>> {
  if (framesContract) return framesContract;
  const ajv = newAjv();
  const doc = asyncApiDocument(DOCS_BASE_URL) as {
    channels: Record<string, { address: string; messages: Record<string, { payload: Json }> }>;
    operations: Record<string, { action: string; channel: { $ref: string }; messages: { $ref: string }[] }>;
  };
  framesContract = new Map();
  for (const op of Object.values(doc.operations)) {
    if (op.action !== 'receive') continue;
    const channel = doc.channels[op.channel.$ref.split('/').pop()!];
    const byType = new Map<string, ValidateFunction>();
    for (const { $ref } of op.messages) {
      const payload = channel.messages[$ref.split('/').pop()!].payload;
      const type = (payload.properties as Record<string, { const?: string }>).type.const!;
      byType.set(type, ajv.compile(tighten(payload) as Json));
    }
    framesContract.set(channel.address, byType);
  }
  return framesContract;
}

/**
 * Checks one frame received on the channel at `address` (`/ws/risk`, `/ws/quotes`, `/ws/market`) against the
 * AsyncAPI document and counts it; answers the frame.
 * @throws ContractViolation naming the channel, the frame type and ajv's errors, when the channel does not list a
 *   server frame of that `type` or the frame is not its payload.
 */
export function checkFrame<F>(address: string, frame: F): F {
  const channel = asyncApi().get(address);
  const type = (frame as { type?: unknown } | null)?.type;
  const fail = (what: string): never => {
    throw new ContractViolation(
      `contract: ${address} frame ${JSON.stringify(type)}: ${what}\nframe: ${trimmed(frame)}`,
    );
  };
  if (!channel) return fail('the AsyncAPI document has no such channel');
  const validate = channel.get(String(type));
  if (!validate) return fail(`not a server frame of the channel (documents ${[...channel.keys()].join(', ')})`);
  if (!validate(frame)) return fail(`not the documented payload:\n${errorLines(validate.errors)}`);
  count('frames');
  return frame;
}

/**
 * A validator of values against the schemas of the OpenAPI document `doc` with the contract's strictness (see the
 * module header: objects closed against undocumented fields, formats checked): `validate(schema, value)` answers
 * ajv's errors as lines, or `''` when `value` is valid. test/unit/openapi-examples.test.ts checks the examples with it.
 */
export function schemaValidator(doc: Json): (schema: unknown, value: unknown) => string {
  const { ajv } = compileOpenApi(doc);
  const compiled = new Map<unknown, ValidateFunction>();
  return (schema, value) => {
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, (validate = ajv.compile(tighten(schema) as Json)));
    return validate(value) ? '' : errorLines(validate.errors);
  };
}

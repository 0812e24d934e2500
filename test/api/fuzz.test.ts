/**
 * Seeded property-based fuzz (issue 16, "Tests"): every operation of the running server's OpenAPI
 * document gets mutated requests — hostile path ids, query strings of the wrong type (huge, negative,
 * `NaN`/`Infinity`, forged cursors), JSON bodies derived from the operation's request schema with
 * mutations (wrong types, huge numbers, 1 MB strings, 50-deep nesting, `__proto__`/`constructor` keys,
 * NUL, lone surrogates), raw bodies with bad encodings or invalid JSON, and mutated headers — as the
 * trader, an operator with every scope, or nobody. New routes are covered without new code.
 *
 * Expected: no answer is 5xx, every 4xx is `{ error, detail? }` (the Error schema), the server still
 * answers afterwards, and rows only grow by as many 2xx creates as were answered.
 *
 * Operations fuzzed with care (nothing is skipped outright):
 *
 * | Operation                          | Why                                                  | How                               |
 * | ---------------------------------- | ---------------------------------------------------- | --------------------------------- |
 * | POST /api/auth/api-token/revoke    | a revoke of the fuzz bearer would end the run        | as a throwaway trader             |
 * | POST /api/auth/siwe/logout         | a logout of the fuzz session would end the run       | as a throwaway trader             |
 * | path ids of tenants, firms, ...    | a valid body on the real tenant could lock it        | hostile ids only (never real ids) |
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Account, OrderIntent, WebhookEndpoint } from '../../db/entities.js';
import { scoped } from '../../db/orm.js';
import { SCOPES } from '../../domain/gates.js';
import { startStack, type Stack } from '../support/stack.js';
import { publish, recordedTick } from '../support/marks.js';

/** Fixed seed: a failure reproduces. */
const SEED = 42;
/** Mutated requests per operation (about 140 operations, ~3,500 requests: about 15 s in all). */
const RUNS_PER_OPERATION = 25;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  required?: string;
  parameters: { in: string; name: string; schema?: Schema }[];
  body?: Schema;
  tags: string[];
}
/** One request as sent, summarised for the failure report. */
interface Sent {
  method: string;
  path: string;
  url: string;
  auth: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  summary: string;
}

/** `depth` nested objects around `leaf`: depth 1 is `{ a: leaf }`. */
const nest = (depth: number, leaf: Json = 1): Json => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

/** Path segments, already percent-encoded as they go on the wire. */
const HOSTILE_IDS = [
  'acc_%00',
  'a'.repeat(300),
  '..%2F..%2Fhealthz',
  '..',
  '%2E%2E',
  encodeURIComponent('ünïcødé-😀-ид'),
  '%ED%A0%80', // a lone high surrogate, WTF-8
  '%ED%BF%BF', // a lone low surrogate
  '%F0%9F', // a truncated 4-byte sequence
  '%FF%FE',
  '%zz',
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  '__proto__',
  'constructor',
  'null',
  '%20',
  "'%20OR%201=1--",
  '00000000-0000-0000-0000-000000000000',
  `acc_${'x'.repeat(40)}`,
];
/** Forged cursors: random base64, JSON with a non-numeric id, a year-99999 date, garbage. */
const FORGED_CURSORS = [
  b64('\u0000\u00ff random bytes \u0001'),
  'AAAA',
  '!!!not-base64!!!',
  b64url(JSON.stringify(['2026-01-01T00:00:00.000Z', 'abc'])),
  b64url(JSON.stringify(['+099999-01-01T00:00:00.000Z', 1])),
  b64url(JSON.stringify([null, null])),
  b64url(JSON.stringify({ id: { $gt: 0 } })),
  b64url(JSON.stringify(['x', 1e308])),
  b64url('[1,'),
  b64url(JSON.stringify(['2026-01-01T00:00:00.000Z', 'a'.repeat(5000)])),
];
/** Query values, already percent-encoded. */
const HOSTILE_QUERY = [
  '-1',
  '0',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '9'.repeat(400),
  '1.5',
  '',
  'abc',
  'true',
  '%00',
  '%ED%A0%80',
  'x'.repeat(3000),
  '[]',
  '%7B%7D',
  '2026-13-45',
  '%2B099999-01-01T00:00:00Z',
  '-099999-01-01',
  ...FORGED_CURSORS.map(encodeURIComponent),
];
/** Raw JSON literals JSON.stringify cannot write; spliced in for these markers. */
const RAW = {
  __RAW_1e999__: '1e999',
  __RAW_BIGINT__: '123456789012345678901234567890',
  __RAW_2P53__: '9007199254740993',
  __RAW_NEG0__: '-0',
};
/** Values put in place of one field of a schema-valid body. */
const HOSTILE_VALUES: Json[] = [
  'x'.repeat(1 << 20),
  -1,
  -1e308,
  1e308,
  0,
  1.5,
  'NaN',
  'Infinity',
  '-Infinity',
  ...Object.keys(RAW),
  true,
  null,
  [],
  {},
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '𝕏'.repeat(300),
  '9'.repeat(400),
  nest(50),
  ['\u0000'],
  { $gt: '' },
  '2026-13-45',
  '+099999-01-01T00:00:00Z',
];
/** Raw bodies and the headers that make them hostile. */
const RAW_BODIES: { name: string; headers: Record<string, string>; body: string | Buffer }[] = [
  { name: 'truncated JSON', headers: {}, body: '{"a":' },
  { name: 'trailing garbage', headers: {}, body: '{}garbage' },
  { name: 'bare string', headers: {}, body: '"str"' },
  { name: 'bare null', headers: {}, body: 'null' },
  { name: '1e999', headers: {}, body: '1e999' },
  {
    name: 'invalid UTF-8',
    headers: {},
    body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  },
  { name: 'gzip on plain JSON', headers: { 'content-encoding': 'gzip' }, body: '{}' },
  { name: 'deflate on plain JSON', headers: { 'content-encoding': 'deflate' }, body: '{}' },
  { name: 'br on plain JSON', headers: { 'content-encoding': 'br' }, body: '{}' },
  { name: 'unknown encoding', headers: { 'content-encoding': 'compress' }, body: '{}' },
  { name: 'two encodings', headers: { 'content-encoding': 'identity, gzip' }, body: '{}' },
  { name: 'utf-16 charset', headers: { 'content-type': 'application/json; charset=utf-16' }, body: '{}' },
  { name: 'text/plain', headers: { 'content-type': 'text/plain' }, body: '{}' },
  { name: 'form body', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&__proto__[x]=1' },
  { name: 'no content type', headers: { 'content-type': '' }, body: '{}' },
  { name: '300 KB body', headers: {}, body: JSON.stringify({ pad: 'x'.repeat(300_000) }) },
  { name: 'duplicate __proto__', headers: {}, body: '{"__proto__":{"admin":true},"__proto__":1}' },
];
/** Header mutations (values a fetch can send: no NUL or CR/LF). */
const HOSTILE_HEADERS: Record<string, string>[] = [
  { 'idempotency-key': 'k'.repeat(300) },
  { 'idempotency-key': ' ' },
  { 'idempotency-key': 'ü' },
  { 'x-tenant-slug': 'a'.repeat(300) },
  { 'x-tenant-slug': '../..' },
  { 'x-forwarded-for': 'not-an-ip, 999.999.999.999' },
  { authorization: 'Bearer a.b.c' },
  { authorization: 'Bearer' },
  { authorization: `Basic ${b64('x:y')}` },
  { 'content-length-ignored': '1', accept: '*/*;q=NaN' },
  { cookie: 'session=%ED%A0%80; session=x' },
];

/** Strings tried against a schema's `pattern` (decimals, colours, dates, months, emails, addresses, slugs). */
const PATTERN_CANDIDATES = [
  '1',
  '#112233',
  '2026-01-01T00:00:00Z',
  '2026-01',
  'fuzz@example.test',
  `0x${'1'.repeat(40)}`,
  `0x${'1'.repeat(130)}`,
  'fuzz-slug',
  'fuzz',
];

/** Resolves a `$ref` to a schema of the document. */
const deref = (doc: any, s: Schema | undefined): Schema | undefined =>
  s?.$ref ? deref(doc, doc.components.schemas[String(s.$ref).split('/').pop()!]) : s;

/** A plausible value of `schema` (first enum member, minimum, formats); depth-bounded. */
function sample(doc: any, schema: Schema | undefined, depth = 0): Json {
  const s = deref(doc, schema);
  if (!s || depth > 6) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.default !== undefined && typeof s.default !== 'object') return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (Array.isArray(alt)) return sample(doc, alt.find((a: Schema) => a.type !== 'null') ?? alt[0], depth + 1);
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((a: Schema) => sample(doc, a, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) out[k] = sample(doc, v, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(doc, s.items, depth + 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'uri') return 'http://127.0.0.1:9/hook';
      if (s.format === 'date-time') return '2026-01-01T00:00:00.000Z';
      if (s.format === 'email') return 'fuzz@example.test';
      if (s.pattern) {
        const re = new RegExp(s.pattern);
        const fit = PATTERN_CANDIDATES.find((c) => re.test(c));
        if (fit) return fit;
      }
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    default:
      return s.properties ? sample(doc, { ...s, type: 'object' }, depth) : 'x';
  }
}

/** Every key path (arrays by index) of `v`, `[]` the root. */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}
/** `v` with the value at `at` replaced (`[]` replaces the root). */
function setAt(v: Json, at: (string | number)[], value: Json): Json {
  if (at.length === 0) return value;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[at[0]] = setAt(copy[at[0]], at.slice(1), value);
  return copy;
}
/** `v` with every string leaf replaced by `value`. */
function everyString(v: Json, value: Json): Json {
  if (typeof v === 'string') return value;
  if (Array.isArray(v)) return v.map((x) => everyString(x, value));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, everyString(x, value)]));
  return v;
}
/** `v` without the value at `at`. */
function dropAt(v: Json, at: (string | number)[]): Json {
  if (at.length === 0) return {};
  if (at.length === 1) {
    const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
    if (Array.isArray(copy)) copy.splice(Number(at[0]), 1);
    else delete copy[at[0]];
    return copy;
  }
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[at[0]] = dropAt(copy[at[0]], at.slice(1));
  return copy;
}
/** JSON text with the raw markers replaced by literals JSON.stringify cannot write. */
const stringify = (v: Json): string =>
  Object.entries(RAW).reduce((text, [marker, raw]) => text.split(`"${marker}"`).join(raw), JSON.stringify(v));
const short = (v: unknown, n = 160): string => {
  const t = typeof v === 'string' ? v : Buffer.isBuffer(v) ? `<${v.length} bytes>` : JSON.stringify(v);
  return t === undefined ? String(t) : t.length > n ? `${t.slice(0, n)}…(${t.length} chars)` : t;
};

/** Scopes and tags of operator routes (the rest are the trader's or public). */
const OPERATOR_TAGS = new Set([
  'firms',
  'prop-templates',
  'risk-profiles',
  'trading-groups',
  'prop-accounts',
  'webhooks',
  'tenants',
  'sor',
]);
/** Operations that would end the fuzz credential: they run as a throwaway trader. */
const THROWAWAY = new Set(['POST /api/auth/api-token/revoke', 'POST /api/auth/siwe/logout']);

describe('fuzz: every OpenAPI operation with hostile input', () => {
  let s: Stack;
  let doc: any;
  const ops: Operation[] = [];
  const tokens = { trader: '', operator: '', throwaway: '' };
  let accountId = '';
  let keys = 0;

  beforeAll(async () => {
    s = await startStack({
      env: {
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        RATE_LIMIT_IP_PER_SECOND: '100000',
        RATE_LIMIT_IP_BURST: '100000',
        RATE_LIMIT_SECRET_FAILURES_PER_MINUTE: '100000',
      },
    });
    await publish(s.orm, await recordedTick('SOL.PAPER', 0.25));
    const t = await s.trader();
    tokens.trader = t.token;
    accountId = t.accountId!;
    tokens.operator = (await s.operator([...SCOPES])).token;
    tokens.throwaway = (await s.trader()).token;
    const res = await s.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        ops.push({
          method: method.toUpperCase(),
          path,
          required: op['x-required'],
          parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])],
          body: op.requestBody?.content?.['application/json']?.schema,
          tags: op.tags ?? [],
        });
      }
    }
  }, 60_000);
  afterAll(async () => s?.stop());

  const em = () => scoped(s.orm, s.tenant.id);
  const counts = async () => ({
    accounts: await em().count(Account, {}),
    intents: await em().count(OrderIntent, {}),
    webhooks: await em().count(WebhookEndpoint, {}),
  });

  /** The bearer an operation is meant for: an operator for scoped and operator-tagged routes, else the trader. */
  const roleOf = (op: Operation): 'trader' | 'operator' | 'throwaway' => {
    if (THROWAWAY.has(`${op.method} ${op.path}`)) return 'throwaway';
    if ((SCOPES as readonly string[]).includes(op.required ?? '')) return 'operator';
    return op.tags.some((t) => OPERATOR_TAGS.has(t)) ? 'operator' : 'trader';
  };

  /** An arbitrary mutated request for `op`. */
  const requestOf = (op: Operation) => {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const ownAccount = op.path.startsWith('/api/v1/accounts/{id}');
    const id = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_IDS) },
      { weight: 1, arbitrary: fc.constantFrom('paper', 'SOL.PAPER', 'x') },
      { weight: ownAccount ? 3 : 0, arbitrary: fc.constant(accountId) },
    );
    const queryValue = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_QUERY) },
      { weight: 1, arbitrary: fc.constant('1') },
    );
    const bodyValue = sample(doc, op.body);
    const bodyPaths = paths(bodyValue);
    const body = op.body
      ? fc.oneof(
          fc.constant({ kind: 'valid' as const }),
          fc.record({
            kind: fc.constant('replace' as const),
            at: fc.constantFrom(...bodyPaths),
            value: fc.constantFrom(...HOSTILE_VALUES),
          }),
          fc.record({ kind: fc.constant('drop' as const), at: fc.constantFrom(...bodyPaths) }),
          fc.record({
            kind: fc.constant('everyString' as const),
            value: fc.constantFrom<Json>('x', 'NaN', '-1', '1e999', '\u0000', '\ud800', 'x'.repeat(5000), 1, null),
          }),
          fc.record({ kind: fc.constantFrom('proto' as const, 'constructor' as const, 'deep' as const) }),
          fc.record({ kind: fc.constant('raw' as const), raw: fc.constantFrom(...RAW_BODIES) }),
        )
      : fc.oneof(
          { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
          {
            weight: 1,
            arbitrary: fc.record({ kind: fc.constant('raw' as const), raw: fc.constantFrom(...RAW_BODIES) }),
          },
        );
    return fc.record({
      ids: fc.tuple(...pathParams.map(() => id), fc.constant('')),
      query: fc.tuple(
        ...queryParams.map(() => fc.option(queryValue, { nil: undefined, freq: 4 })),
        fc.constant(undefined),
      ),
      extraQuery: fc.constantFrom('', 'limit=1&limit=2', 'cursor[]=x', '__proto__[a]=1', `junk=${'9'.repeat(400)}`),
      body,
      auth: fc.oneof(
        { weight: 6, arbitrary: fc.constant('own' as const) },
        { weight: 1, arbitrary: fc.constantFrom('trader' as const, 'operator' as const, 'none' as const) },
      ),
      headers: fc.oneof(
        { weight: 4, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_HEADERS) },
      ),
    });
  };

  /**
   * Inputs every operation gets whatever the seed draws: a plain id with every body string `NaN`, then
   * `x`; prototype keys as ids with `NaN` queries; a `__proto__` body; a gzip header on plain JSON.
   */
  const examplesOf = (op: Operation): [any][] => {
    const n = op.parameters.filter((p) => p.in === 'path').length;
    const q = op.parameters.filter((p) => p.in === 'query').length;
    const ownAccount = op.path.startsWith('/api/v1/accounts/{id}');
    const ids = (id: string) => [...Array.from({ length: n }, (_, i) => (i === 0 && ownAccount ? accountId : id)), ''];
    const input = (idList: string[], query: (string | undefined)[], body: object) => ({
      ids: idList,
      query: [...query, undefined],
      extraQuery: '',
      body,
      auth: 'own',
      headers: {},
    });
    const none = Array.from({ length: q }, () => undefined);
    const nan = Array.from({ length: q }, () => 'NaN');
    const withBody = (kind: object) => (op.body ? kind : { kind: 'none' });
    const gzip = RAW_BODIES.find((r) => r.name === 'gzip on plain JSON');
    return [
      [input(ids('x'), none, withBody({ kind: 'everyString', value: 'NaN' }))],
      [input(ids('x'), none, withBody({ kind: 'everyString', value: 'x' }))],
      [input(ids('__proto__'), nan, withBody({ kind: 'proto' }))],
      [input(ids('constructor'), nan, withBody({ kind: 'constructor' }))],
      [input(ids('x'), none, { kind: 'raw', raw: gzip })],
    ];
  };

  /** Builds the wire request of one generated input. */
  const build = (op: Operation, input: any): Sent => {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    let path = op.path;
    pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, input.ids[i])));
    const q = queryParams
      .map((p, i) => (input.query[i] === undefined ? '' : `${p.name}=${input.query[i]}`))
      .concat(input.extraQuery)
      .filter(Boolean)
      .join('&');
    const url = `${s.api.baseUrl}${path}${q ? `?${q}` : ''}`;
    const role = input.auth === 'own' ? roleOf(op) : input.auth;
    const token = role === 'none' ? undefined : tokens[role as keyof typeof tokens];
    const headers: Record<string, string> = {
      'x-tenant-slug': s.tenant.slug,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    };
    if (op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
      headers['idempotency-key'] = `fuzz-${++keys}`;
    }
    let body: string | Buffer | undefined;
    let bodySummary = '';
    const b = input.body;
    const base = sample(doc, op.body);
    if (b.kind === 'valid') body = stringify(base);
    else if (b.kind === 'replace') {
      body = stringify(setAt(base, b.at, b.value));
      bodySummary = `${b.at.join('.') || '<root>'}=${short(b.value, 60)}`;
    } else if (b.kind === 'everyString') {
      body = stringify(everyString(base, b.value));
      bodySummary = `every string=${short(b.value, 40)}`;
    } else if (b.kind === 'drop') {
      body = stringify(dropAt(base, b.at));
      bodySummary = `drop ${b.at.join('.') || '<root>'}`;
    } else if (b.kind === 'proto') {
      const text = stringify(base);
      body = text.startsWith('{') ? `{"__proto__":{"admin":true,"tier":"fullTrading"},${text.slice(1)}` : text;
      body = body.replace(',}', '}');
    } else if (b.kind === 'constructor') {
      body = stringify({ constructor: { prototype: { admin: true } }, ...(base as object) });
    } else if (b.kind === 'deep') {
      const first = paths(base)[1] ?? [];
      body = stringify(setAt(base, first, nest(50)));
      bodySummary = `${first.join('.') || '<root>'}=nest(50)`;
    } else if (b.kind === 'raw') {
      body = b.raw.body;
      bodySummary = `raw ${b.raw.name}`;
      Object.assign(headers, b.raw.headers);
    }
    if (op.method === 'GET' && body !== undefined) {
      body = undefined; // fetch sends no body on GET; the hostile headers still go
      bodySummary += ' (headers only on GET)';
    }
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    if (headers['content-type'] === '') delete headers['content-type'];
    Object.assign(headers, input.headers);
    const summary = [
      input.ids.filter(Boolean).length ? `ids=${short(input.ids.filter(Boolean), 80)}` : '',
      q ? `query=${short(q, 120)}` : '',
      b.kind !== 'none' ? `body[${b.kind}]${bodySummary ? ` ${bodySummary}` : ''}` : '',
      `auth=${role}`,
      Object.keys(input.headers).length ? `headers=${short(input.headers, 80)}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return { method: op.method, path: op.path, url, auth: role, headers, body, summary };
  };

  it('answers every mutated request without a 5xx, with { error } on every 4xx, and leaves no half-written rows', async () => {
    expect(ops.length).toBeGreaterThan(100);
    const before = await counts();
    const failures: { method: string; path: string; input: string; status: number | string; body: string }[] = [];
    const created = { accounts: 0, intents: 0, webhooks: 0 };
    let sent = 0;
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(requestOf(op), async (input) => {
          const req = build(op, input);
          let status: number;
          let text: string;
          try {
            const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
            status = res.status;
            text = await res.text();
          } catch (err) {
            failures.push({
              method: req.method,
              path: req.path,
              input: req.summary,
              status: 'no answer',
              body: String(err),
            });
            return;
          }
          sent++;
          const problem = (() => {
            if (status >= 500) return 'status ≥ 500';
            if (status < 400) return undefined;
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              return '4xx body is not JSON';
            }
            return parsed && typeof parsed === 'object' && typeof parsed.error === 'string' && parsed.error
              ? undefined
              : '4xx body lacks { error }';
          })();
          if (problem) {
            failures.push({
              method: req.method,
              path: req.path,
              input: `${problem}: ${req.summary}`,
              status,
              body: short(text, 300),
            });
          }
          if (status >= 200 && status < 300 && req.method !== 'GET') {
            created.accounts++;
            if (req.path.startsWith('/api/v1/oms/')) created.intents++;
            if (req.method === 'POST' && req.path === '/api/v1/webhooks') created.webhooks++;
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, examples: examplesOf(op) },
      );
    }
    // Soft: the liveness and row checks below still run and report when some answers failed.
    expect.soft(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(ops.length * RUNS_PER_OPERATION);

    // Alive: health, and the trader's bearer still reads.
    expect((await fetch(`${s.api.baseUrl}/healthz`)).status).toBe(200);
    expect((await s.call('GET', `/api/v1/accounts/${accountId}`, { token: tokens.trader })).status).toBeLessThan(500);

    // No half-written rows: each table grows by at most the 2xx writes that may create its rows.
    const after = await counts();
    expect(after.accounts - before.accounts).toBeLessThanOrEqual(created.accounts);
    expect(after.intents - before.intents).toBeLessThanOrEqual(created.intents);
    expect(after.webhooks - before.webhooks).toBeLessThanOrEqual(created.webhooks);
  }, 120_000);
});

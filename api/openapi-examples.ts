/**
 * Examples for the OpenAPI document: every request body and every 2xx JSON response gets a media-type `example`,
 * composed from the examples the zod schemas carry (`.meta({ example })`, as `example` in the JSON Schema), from
 * the component's own example when it has one (the intent, the fill, the position, the compose body…), and, for a
 * field without one, from its `const`, `enum`, `default`, format and constraints, with realistic values chosen by
 * the field's name (decimal strings, `acc_…` and `int_…` ids, ISO times). An operation's own example
 * (the route's `bodyExample` or a response's `example`) wins. test/unit/openapi-examples.test.ts checks every example against its schema.
 */

/** A JSON Schema node of the rendered document (zod-openapi's output: plain JSON). */
type Schema = Record<string, unknown>;

/** The document's `components.schemas`, by name, for resolving `$ref`s. */
type Components = Record<string, Schema>;

/** The instant every example uses. */
const AT = '2026-05-14T09:30:00.000Z';

/** Example strings for the patterns the document uses, tried before the name-based guess when that one does not match. */
const BY_PATTERN: readonly string[] = [
  '#0F172A',
  '64250.5',
  '2026-05',
  '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  `0x${'1b'.repeat(65)}`,
  'trader@acme-dex.com',
  '/trade',
  'acme-dex',
  'acme-dex.com',
  AT,
];

/** Id prefixes by the name of the field (`accountId`) or, for a bare `id`, of the component holding it. */
const ID_PREFIX: Record<string, string> = {
  account: 'acc',
  intent: 'int',
  order: 'int',
  fill: 'fil',
  trade: 'trd',
  firm: 'frm',
  payout: 'pay',
  template: 'tpl',
  challenge: 'chl',
  offer: 'ofr',
  profile: 'rsk',
  group: 'grp',
  webhook: 'whk',
  endpoint: 'whk',
  delivery: 'dlv',
  credential: 'cred',
  agent: 'agt',
  tenant: 'tnt',
  owner: 'usr',
  user: 'usr',
  identity: 'idn',
  provider: 'prv',
  invite: 'inv',
  bracket: 'brk',
  chase: 'chs',
  batch: 'bat',
  decision: 'sor',
  operation: 'fop',
  funding: 'fop',
  backtest: 'bkt',
};

/** Name-based string guesses, first match wins (the field's name, lower-cased). */
const BY_NAME: readonly (readonly [RegExp, string])[] = [
  [/^venue(order|trade)id$/, '91827364501'],
  [/^clientorderid$/, 'grid-btc-42'],
  [/number$/, 'PA-7F3A9C2E'],
  [/version$/, '1'],
  [/event$/, 'intent.filled'],
  [/leverage$/, '5'],
  [/cursor$/, 'eyJ0IjoiMjAyNi0wNS0xNFQwOTozMDowMFoiLCJpZCI6ImludF83ZjNhIn0'],
  [/bps$/, '4.5'],
  [/^(tp|takeprofit)$/, '66000'],
  [/^(sl|stoploss)$/, '62500'],
  [/(change24h|changepct24h|volume24h|return|factor|units|gasused|step|candidates|bars)$/, '1.25'],
  [/^month$/, '2026-04'],
  [/^(hour|ts)$/, AT],
  [/^(csv|pdf|path|startpath)$/, '/api/v1/reports/statements/acc_7f3a9c2e41b85d06e1c4/2026-04'],
  [/^method$/, 'POST'],
  [/(signers?|deployer|instance|safetx)$/, '0x5FbDB2315678afecb367f032d93F642f64180aa3'],
  [/(requestedby|decidedby)$/, 'op_7f3a9c2e41b85d06e1c4'],
  [/^(events?|topics?)$/, 'fill.executed'],
  [/(question|eventtitle)$/, 'Will BTC close above $70,000 on May 31?'],
  [/outcome$/, 'Yes'],
  [/^exchange$/, 'paper'],
  [/^(label|agentname)$/, 'Grid bot'],
  [/^tier$/, 'fullTrading'],
  [/^(scopes?|requires)$/, 'tenant:config'],
  [/^(left|right)$/, 'close'],
  [/^subject$/, 'trader@acme-dex.com'],
  [/^calls$/, '0x095ea7b3'],
  [/(^|_)(at|time|since|until|from|to)$|at$|time$|date$/, AT],
  [/symbol|ticker|coin/, 'BTC.PAPER'],
  [/venue/, 'paper'],
  [/(qty|size|quantity|contracts)$/, '0.01'],
  [/price|mark|mid|bid|ask|open|high|low|close|vwap/, '64250.5'],
  [/(usd|pnl|equity|balance|notional|margin|amount|fee|fees|value|cash|volume|exposure|limit|cap|payout)$/, '1250.75'],
  [/(pct|percent|ratio|rate|leverage|share|fraction|sharpe|sortino|drawdown)$/, '0.08'],
  [/email/, 'trader@acme-dex.com'],
  [/(url|uri|href|endpoint|callback|issuer|redirect|location)$/, 'https://acme-dex.com/hooks/fills'],
  [/origin/, 'https://acme-dex.com'],
  [/host|domain/, 'acme-dex.com'],
  [/slug/, 'acme-dex'],
  [/(address|wallet|contract|signer|owner|safe)$/, '0x5FbDB2315678afecb367f032d93F642f64180aa3'],
  [/(hash|txhash|tx)$/, `0x${'9c'.repeat(32)}`],
  [/signature/, `0x${'1b'.repeat(65)}`],
  [/(secret|token|nonce|key)$/, 'k3Jd9vQ2mX7pL4sT8wZ1'],
  [/currency|asset/, 'USD'],
  [/(name|title|label)$/, 'Acme DEX'],
  [/(reason|description|detail|message|note|text|summary)$/, 'Within the trading group’s limits'],
  [/(code|error)$/, 'risk_limit_exceeded'],
  [/(status|state|kind|type|mode|side)$/, 'active'],
  [/(chain|network)$/, 'hyperliquid'],
];

/** A short stable hex tail for ids. */
const HEX = '7f3a9c2e41b85d06e1c4';

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the walk knows about the node: the property name it sits under and the nearest component's name. */
interface Where {
  name: string;
  component: string;
  depth: number;
  seen: readonly string[];
}

/** A `$ref`'s component name (`#/components/schemas/Name`), or undefined for another kind of reference. */
const refName = (ref: unknown) =>
  typeof ref === 'string' && ref.startsWith('#/components/schemas/')
    ? ref.slice('#/components/schemas/'.length)
    : undefined;

/** The id prefix for an id field (`accountId`, or `id` inside `Account`), else undefined. */
function idPrefix(name: string, component: string): string | undefined {
  const lower = name.toLowerCase();
  const subject = lower === 'id' ? component.toLowerCase() : lower.endsWith('id') ? lower.slice(0, -2) : undefined;
  if (subject === undefined) return undefined;
  const key = Object.keys(ID_PREFIX).find((k) => subject.includes(k));
  return key ? ID_PREFIX[key] : 'obj';
}

/** True when `value` satisfies the string constraints of `schema` (pattern, lengths, format). */
function fits(schema: Schema, value: string): boolean {
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
  if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return false;
  if (schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT/.test(value)) return false;
  if (schema.format === 'email' && !value.includes('@')) return false;
  if (schema.format === 'uri' && !/^[a-z]+:/.test(value)) return false;
  return true;
}

/** An example string for `schema` under the field `where.name`. */
function sampleString(schema: Schema, where: Where): string {
  const name = where.name.toLowerCase();
  const prefix = /^venue|^client|^external/.test(name) ? undefined : idPrefix(where.name, where.component);
  const candidates = [
    ...(schema.format === 'date-time' ? [AT] : []),
    ...(schema.format === 'email' ? ['trader@acme-dex.com'] : []),
    ...(schema.format === 'uri' ? ['https://acme-dex.com/hooks/fills'] : []),
    ...(schema.format === 'uuid' ? ['3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b'] : []),
    ...(prefix ? [`${prefix}_${HEX}`] : []),
    ...BY_NAME.filter(([re]) => re.test(name)).map(([, v]) => v),
    ...(typeof schema.pattern === 'string' ? BY_PATTERN : []),
    'Acme DEX',
  ];
  const hit = candidates.find((c) => fits(schema, c));
  if (hit !== undefined) return hit;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  return 'example'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 7)));
}

/** An example number for `schema` (integers when `type` is `integer`), inside its bounds. */
function sampleNumber(schema: Schema, where: Where): number {
  const integer = schema.type === 'integer';
  const name = where.name.toLowerCase();
  let n = /limit|page|max/.test(name)
    ? 50
    : /leverage/.test(name)
      ? 5
      : /ratio|rate|pct|fraction|sharpe|sortino/.test(name)
        ? 0.08
        : 2;
  if (/chainid/.test(name)) n = 31337;
  const lo = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const hi = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const xlo = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const xhi = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  if (hi !== undefined && n > hi) n = hi;
  if (xhi !== undefined && n >= xhi) n = integer ? Math.ceil(xhi) - 1 : xhi / 2;
  if (lo !== undefined && n < lo) n = lo;
  if (xlo !== undefined && n <= xlo) n = integer ? Math.floor(xlo) + 1 : xlo + 1;
  return integer ? Math.round(n) : n;
}

/** The JSON Schema `type`s of a node, `null` last (a nullable field shows its value, not null). */
function types(schema: Schema): string[] {
  const t = schema.type;
  const list = Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
  return [...list.filter((x) => x !== 'null'), ...list.filter((x) => x === 'null')];
}

/**
 * An example value for `schema`: its own `example` (or first `examples`), else `const`, first `enum`, `default`,
 * else one built from its type, properties and items. `$ref`s are resolved in `components`; a reference cycle
 * ends in the smallest value its schema allows.
 */
function sample(schema: unknown, components: Components, where: Where): unknown {
  if (!isObject(schema)) return null;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  const ref = refName(schema.$ref);
  if (ref !== undefined) {
    const target = components[ref];
    if (!target) return null;
    if (where.seen.includes(ref)) return minimal(target, components);
    return sample(target, components, { ...where, component: ref, seen: [...where.seen, ref] });
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length) {
      const first: unknown = (branches as unknown[]).find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
      return sample(first, components, where);
    }
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...schema.allOf.map((part) => {
        const v = sample(part, components, where);
        return isObject(v) ? v : {};
      }),
    ) as unknown;
  }
  const type = types(schema)[0] ?? (isObject(schema.properties) ? 'object' : undefined);
  switch (type) {
    case 'object':
      return sampleObject(schema, components, where);
    case 'array':
      return sampleArray(schema, components, where);
    case 'string':
      return sampleString(schema, where);
    case 'integer':
    case 'number':
      return sampleNumber(schema, where);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}

/** An object example: every property (a required one always, an optional one while not too deep), one map entry. */
function sampleObject(schema: Schema, components: Components, where: Where): Record<string, unknown> {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
    if (!required.has(name) && where.depth > 4) continue;
    out[name] = sample(prop, components, { ...where, name, depth: where.depth + 1 });
  }
  const extra = schema.additionalProperties;
  if (isObject(extra) && !isObject(schema.properties)) {
    const names = isObject(schema.propertyNames) ? schema.propertyNames : { type: 'string' };
    const key = sample(names, components, { ...where, name: where.name || 'key' });
    const value = sample(extra, components, { ...where, depth: where.depth + 1 });
    if (typeof key === 'string') out[key] = value;
  }
  return out;
}

/** An array example: one item (or `minItems` of them; the `prefixItems` of a tuple). */
function sampleArray(schema: Schema, components: Components, where: Where): unknown[] {
  const inner = { ...where, depth: where.depth + 1 };
  if (Array.isArray(schema.prefixItems)) return schema.prefixItems.map((p) => sample(p, components, inner));
  if (where.depth > 6) return [];
  const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
  const item = sample(schema.items, components, inner);
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : count;
  return Array.from({ length: Math.min(count, max) }, () => item);
}

/** The smallest value a schema allows, to end a reference cycle: `[]`, `{}` of its required fields, null. */
function minimal(schema: Schema, components: Components): unknown {
  const type = types(schema)[0];
  if (type === 'array') return [];
  if (type === 'null' || types(schema).includes('null')) return null;
  if (type === 'object') {
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const props = isObject(schema.properties) ? schema.properties : {};
    return Object.fromEntries(
      required.map((n) => [n, sample(props[n], components, { name: n, component: '', depth: 99, seen: [] })]),
    );
  }
  return sample(schema, components, { name: '', component: '', depth: 99, seen: [] });
}

/** An example value for `schema` in a document whose components are `components`. */
export function exampleOf(schema: unknown, components: Components): unknown {
  const ref = isObject(schema) ? refName(schema.$ref) : undefined;
  return sample(schema, components, { name: '', component: ref ?? '', depth: 0, seen: [] });
}

/** The media types of a request body or response that get an example: JSON ones. */
const JSON_TYPE = /^application\/(.+\+)?json$/;

/**
 * Adds an `example` to every JSON request body and every JSON 2xx response of `doc` that has none (see the
 * module header). Mutates and returns `doc`.
 */
export function withExamples<D extends { paths?: unknown; components?: unknown }>(doc: D): D {
  const components = ((isObject(doc.components) ? doc.components.schemas : undefined) ?? {}) as Components;
  const fill = (content: unknown) => {
    if (!isObject(content)) return;
    for (const [type, media] of Object.entries(content)) {
      if (!JSON_TYPE.test(type) || !isObject(media) || 'example' in media || 'examples' in media) continue;
      media.example = exampleOf(media.schema, components);
    }
  };
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const op of Object.values(isObject(item) ? item : {})) {
      if (!isObject(op)) continue;
      if (isObject(op.requestBody)) fill(op.requestBody.content);
      for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        if (/^2/.test(status) && isObject(response)) fill(response.content);
      }
    }
  }
  return doc;
}

/**
 * The stable OpenAPI `operationId` of an endpoint (docs/api.md §9), derived from its method and path
 * when its route statement names none (`.with({ operationId })`): camelCase, `<verb><Nouns>` in the trader's vocabulary.
 *
 * - The prefixes `/api/v1`, `/api` and the namespace segments `oms`, `auth`, `public` are dropped.
 * - GET: `list<Nouns>` when the path ends on a plural segment, else `get<Nouns>`; PATCH `update`,
 *   PUT `replace` (path ends on a parameter) or `set`, DELETE `delete`.
 * - POST: `create<Noun>` on a plural collection, else the last segment is the verb (`pauseFirm`).
 * - A segment followed by an `{id}`-like parameter (or any POST noun) is singular.
 * - {@link OPERATION_NAMES} overrides the names traders know (compose, cancel, modify, chase...).
 */

/** `METHOD /path` (OpenAPI form) → the name traders use, where the rule above would read badly. */
const OPERATION_NAMES: Record<string, string> = {
  'POST /api/v1/oms/intents': 'composeIntent',
  'POST /api/v1/oms/route-intents': 'routeIntent',
  'POST /api/v1/oms/cancel': 'cancelOrder',
  'POST /api/v1/oms/cancel-all': 'cancelAllOrders',
  'POST /api/v1/oms/modify': 'modifyOrder',
  'POST /api/v1/oms/chase': 'chaseOrder',
  'POST /api/v1/oms/flatten': 'flattenPosition',
  'POST /api/v1/oms/reverse': 'reversePosition',
  'POST /api/v1/oms/brackets/attach-to-position': 'attachBracketToPosition',
  'POST /api/v1/oms/intents/{id}/sign-result': 'submitIntentSignResult',
  'POST /api/auth/api-token': 'issueApiToken',
  'POST /api/auth/siwe/nonce': 'createSiweNonce',
  'POST /api/v1/sandbox/paper-account': 'createPaperAccount',
  'GET /api/prop/transparency/{firmId}': 'getFirmTransparency',
  'POST /api/v1/webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
};

const DROPPED = new Set(['api', 'v1', 'oms', 'auth', 'public']);
const VERB_ALIAS: Record<string, string> = { authorization: 'authorize', live: 'goLive' };

const camel = (s: string) => s.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
const pascal = (s: string) => camel(s).replace(/^\w/, (c) => c.toUpperCase());
const singular = (s: string) => s.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');
const isParam = (s: string) => s.startsWith('{');
const isIdParam = (s: string | undefined) => s !== undefined && /^\{(id|\w+Id)\}$/.test(s);

/** The operationId of `method path` (`path` in OpenAPI form, `/a/{id}`). */
export function operationIdOf(method: string, path: string): string {
  const key = `${method.toUpperCase()} ${path}`;
  if (OPERATION_NAMES[key]) return OPERATION_NAMES[key];
  const segs = path.split('/').filter((s) => s && !DROPPED.has(s));
  const last = segs.at(-1) ?? '';
  const endsOnParam = isParam(last);
  const nouns = (all: boolean) =>
    segs
      .map((s, i) => (isParam(s) ? '' : all || isIdParam(segs[i + 1]) ? singular(s) : s))
      .filter(Boolean)
      .map(pascal)
      .join('');
  const m = method.toLowerCase();
  if (m === 'get') return `${!endsOnParam && /[^s]s$/.test(last) ? 'list' : 'get'}${nouns(false)}`;
  if (m === 'patch') return `update${nouns(false)}`;
  if (m === 'put') return `${endsOnParam ? 'replace' : 'set'}${nouns(false)}`;
  if (m === 'delete') return `delete${nouns(false)}`;
  if (endsOnParam || /s$/.test(last)) return `create${nouns(true)}`;
  segs.pop();
  return `${camel(VERB_ALIAS[last] ?? last)}${nouns(true)}`;
}

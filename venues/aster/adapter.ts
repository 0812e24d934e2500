/**
 * The Aster Futures v3 adapter (docs/venues.md §2). Every trading/user-data call is signed by
 * the agent (Aster "API wallet") for the owner's main wallet (`user`) — signing.ts — and sent
 * form-urlencoded (body for POST/DELETE, query for GET):
 * - place → `POST /fapi/v3/order` (wire.ts {@link orderParams}, `newOrderRespType=RESULT`);
 * - findByClientOrderId / status → `GET /fapi/v3/order` (`origClientOrderId` / `orderId`); `-2013`
 *   (unknown order) → null;
 * - cancel → `DELETE /fapi/v3/order` (`symbol`, `orderId`); a refused cancel of an order that is
 *   already final answers that final state;
 * - fills → `GET /fapi/v3/userTrades` per symbol in ≤ 7-day windows from `sinceMs`, paged by `fromId`;
 * - orders → `GET /fapi/v3/openOrders` plus `GET /fapi/v3/allOrders` per listed symbol (the last
 *   7 days, which include orders placed in Aster's own web interface);
 * - account → `GET /fapi/v3/accountWithJoinMargin` (wallet balance, unrealised PnL, margin) and
 *   `GET /fapi/v3/positionRisk` (positions with their mark), as Aster's v3 docs name them.
 * Authorisation: the owner's wallet signs the `registerAndApproveAgent` parameter string as an
 * EIP-712 `Message` with chainId = `signatureChainId` (56); the agent may trade perps, never spot
 * nor withdraw, and expires at `expired` (ms); {@link asterAdapter.submitAuthorization} posts it
 * unauthenticated. The nonce is µs (the request's ms nonce × 1000): Aster refuses a registration
 * whose nonce is more than 10 s from its clock, so the owner must sign promptly.
 * Self-signed orders (docs/api.md §3.1): the same request, signed by an API wallet of the owner's
 * own instead of the agent ({@link asterAdapter.selfSigned}).
 * Errors: `{"code":-N,"msg":"…"}` → {@link VenueRejected}(msg); 429, 418 and 5xx → plain Error (retried).
 */
import type { Hex } from 'viem';
import { z } from 'zod';
import { ASTER_SYMBOLS } from '../../domain/market/venues/aster.js';
import { checked, fetchText, parseJson, venueUrl } from '../http.js';
import {
  VenueRejected,
  type AuthorizationRequest,
  type SelfSignedAuth,
  type VenueAdapter,
  type VenueContext,
  type VenueFill,
  type VenueOrder,
  type VenueOrderRequest,
} from '../types.js';
import {
  ASTER_CHAIN_ID,
  EIP712_DOMAIN_TYPE,
  REGISTRATION_CHAIN_ID,
  REGISTRATION_ORDER,
  asterDomain,
  MESSAGE_TYPES,
  messageTypedData,
  paramString,
  recoverSigner,
  registrationMsg,
  safeAgentName,
  signRequest,
  type Params,
  type RegistrationFields,
} from './signing.js';
import {
  asError,
  clientOrderIdFromIntentId,
  orderParams,
  specOf,
  toVenueAccount,
  toVenueFill,
  toVenueOrder,
  UNKNOWN_ORDER,
  wireAccountSchema,
  wirePositionRiskSchema,
  wireOrderSchema,
  wireTradeSchema,
  type WireTrade,
} from './wire.js';

/** Longest `startTime`..`endTime` span `userTrades` accepts (7 days, ms). */
const WINDOW_MS = 7 * 86_400_000;
/** Page size asked of `userTrades` / `allOrders` (the venue's maximum). */
const PAGE = 1000;

type Method = 'GET' | 'POST' | 'DELETE';

/**
 * Sends a form string (query for GET, form-urlencoded body otherwise) and maps the answer: the JSON
 * checked against `schema`; {@link AsterError} for Aster's error shape, VenueRejected for another
 * refusal, Error for transport trouble (429, 418, 5xx, non-JSON 2xx, an unexpected body).
 */
async function send<S extends z.ZodType>(
  ctx: Pick<VenueContext, 'baseUrl' | 'fetch'>,
  method: Method,
  path: string,
  form: string,
  schema: S,
): Promise<z.output<S>> {
  const res =
    method === 'GET'
      ? await fetchText(ctx, venueUrl(ctx.baseUrl, path, form), { method })
      : await fetchText(ctx, venueUrl(ctx.baseUrl, path), {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
  if (res.status === 429 || res.status === 418 || res.status >= 500) {
    throw new Error(`Aster ${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
  const json = parseJson(res.text);
  if (json === undefined) {
    if (!res.ok) throw new VenueRejected(res.text || `HTTP ${res.status}`);
    throw new Error(`Aster ${method} ${path} answered non-JSON: ${res.text.slice(0, 300)}`);
  }
  const err = asError(json);
  if (err) throw new AsterError(err.code, err.msg);
  if (!res.ok) throw new VenueRejected(res.text || `HTTP ${res.status}`);
  return checked(schema, json, `Aster ${method} ${path}`);
}

/** A {@link VenueRejected} that keeps Aster's numeric code (the reason stays the venue's `msg` verbatim). */
export class AsterError extends VenueRejected {
  constructor(
    readonly code: number,
    msg: string,
  ) {
    super(msg);
  }
}

/** Signs `params` for the context's agent (fresh µs nonce) and sends them; the answer checked against `schema`. */
async function signed<S extends z.ZodType>(
  ctx: VenueContext,
  method: Method,
  path: string,
  params: Params,
  schema: S,
): Promise<z.output<S>> {
  if (ctx.agent.kind !== 'evm') throw new Error('Aster needs an EVM agent key (API wallet)');
  const nonce = await ctx.nextNonce('us');
  const req = await signRequest(ctx.agent.privateKey, params, {
    nonce,
    user: ctx.owner,
    signer: ctx.agent.address,
    network: ctx.network,
  });
  return send(ctx, method, path, req.wire, schema);
}

/** The signed `msg` of a self-signed order: its parameters, then `nonce`, `user` (the owner) and `signer`, as {@link signRequest} orders them. */
const selfSignedMsg = (order: VenueOrderRequest, auth: SelfSignedAuth) =>
  paramString([...orderParams(order), ['nonce', auth.nonce.toString()], ['user', auth.owner], ['signer', auth.signer]]);

const trades = z.array(wireTradeSchema);
const orders = z.array(wireOrderSchema);

/** `GET /fapi/v3/order` by one key; null for Aster's unknown order. */
async function queryOrder(
  ctx: VenueContext,
  symbol: string,
  key: ['orderId' | 'origClientOrderId', string],
): Promise<VenueOrder | null> {
  try {
    return toVenueOrder(
      await signed(ctx, 'GET', '/fapi/v3/order', [['symbol', specOf(symbol).venueSymbol], key], wireOrderSchema),
    );
  } catch (e) {
    if (e instanceof AsterError && e.code === UNKNOWN_ORDER) return null;
    throw e;
  }
}

/** Trades of one symbol from `since` to now, oldest first: 7-day windows, each paged by `fromId` when full. */
async function symbolTrades(ctx: VenueContext, venueSymbol: string, since: number): Promise<WireTrade[]> {
  const out = new Map<number, WireTrade>();
  const now = Date.now();
  for (let start = since; start <= now; start += WINDOW_MS) {
    const end = Math.min(start + WINDOW_MS - 1, now);
    const span: Params = [
      ['symbol', venueSymbol],
      ['startTime', String(start)],
      ['endTime', String(end)],
      ['limit', String(PAGE)],
    ];
    let page = await signed(ctx, 'GET', '/fapi/v3/userTrades', span, trades);
    for (;;) {
      for (const t of page) if (t.time >= start && t.time <= end) out.set(t.id, t);
      if (page.length < PAGE || page.some((t) => t.time > end)) break;
      const next = Math.max(...page.map((t) => t.id)) + 1;
      page = await signed(
        ctx,
        'GET',
        '/fapi/v3/userTrades',
        [
          ['symbol', venueSymbol],
          ['fromId', String(next)],
          ['limit', String(PAGE)],
        ],
        trades,
      );
    }
  }
  return [...out.values()].sort((a, b) => a.time - b.time || a.id - b.id);
}

/**
 * A registration `action` field as form text: a string, number, bigint or boolean as `String()` writes it, absent or null as `''`.
 * @throws VenueRejected when the field is an object or array (never a form field).
 */
function actionFieldText(action: Record<string, unknown>, key: string): string {
  const v = action[key];
  if (v === undefined || v === null) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
    return String(v);
  throw new VenueRejected(`Aster authorisation: action.${key} is not a scalar`);
}

/** The form fields of a registration request (its `action`), rebuilt from the signed typed data so what is posted is what was signed. */
function registrationFields(request: AuthorizationRequest): RegistrationFields {
  if (
    request.kind !== 'eip712' ||
    request.typedData.primaryType !== 'Message' ||
    request.typedData.domain.name !== 'AsterSignTransaction' ||
    !request.action
  )
    throw new VenueRejected('not an Aster registerAndApproveAgent authorisation');
  const action = request.action;
  const f = Object.fromEntries(
    REGISTRATION_ORDER.map((k) => [k, actionFieldText(action, k)]),
  ) as unknown as RegistrationFields;
  if (registrationMsg(f) !== request.typedData.message.msg)
    throw new VenueRejected('Aster authorisation: action does not match the signed message');
  if (Number(request.typedData.domain.chainId) !== Number(f.signatureChainId))
    throw new VenueRejected('Aster authorisation: domain chainId is not signatureChainId');
  return f;
}

/** The Aster venue adapter (see the module comment for the wire calls). */
export const asterAdapter: VenueAdapter = {
  venue: 'aster',

  clientOrderId: clientOrderIdFromIntentId,

  async place(ctx, order) {
    return toVenueOrder(await signed(ctx, 'POST', '/fapi/v3/order', orderParams(order), wireOrderSchema));
  },

  /**
   * Self-signed orders: the `POST /fapi/v3/order` parameter string with the nonce allocated at
   * compose, `user` = the owner and `signer` = the credential's signer, which must be an API wallet
   * the owner approved on Aster (the venue refuses any other: `-2015`). Aster refuses a nonce more
   * than 10 s from its clock, so the signature must come within 10 s of compose.
   */
  selfSigned: {
    signer: 'api_wallet',
    typedData(order, auth, network) {
      const td = messageTypedData(selfSignedMsg(order, auth), ASTER_CHAIN_ID[network]);
      return {
        domain: { ...td.domain },
        types: { Message: [...MESSAGE_TYPES.Message] },
        primaryType: td.primaryType,
        message: { ...td.message },
      };
    },
    async place(ctx, order, auth, signature) {
      const form = `${selfSignedMsg(order, auth)}&signature=${signature}`;
      return toVenueOrder(await send(ctx, 'POST', '/fapi/v3/order', form, wireOrderSchema));
    },
  },

  async findByClientOrderId(ctx, symbol, clientOrderId) {
    return queryOrder(ctx, symbol, ['origClientOrderId', clientOrderId]);
  },

  async status(ctx, symbol, venueOrderId) {
    if (!/^\d+$/.test(venueOrderId)) return null;
    return queryOrder(ctx, symbol, ['orderId', venueOrderId]);
  },

  async cancel(ctx, symbol, venueOrderId) {
    try {
      const params: Params = [
        ['symbol', specOf(symbol).venueSymbol],
        ['orderId', venueOrderId],
      ];
      return toVenueOrder(await signed(ctx, 'DELETE', '/fapi/v3/order', params, wireOrderSchema));
    } catch (e) {
      if (!(e instanceof VenueRejected)) throw e;
      // Already filled / canceled / expired: the final state is the answer; otherwise the refusal stands.
      const after = await queryOrder(ctx, symbol, ['orderId', venueOrderId]);
      if (after && after.status !== 'open' && after.status !== 'triggered') return after;
      throw e;
    }
  },

  async fills(ctx, opts) {
    const symbols = opts.symbol ? [specOf(opts.symbol).venueSymbol] : ASTER_SYMBOLS.map((s) => s.venueSymbol!);
    const out: VenueFill[] = [];
    for (const s of symbols) out.push(...(await symbolTrades(ctx, s, opts.sinceMs)).map(toVenueFill));
    return out
      .filter((f) => !opts.venueOrderId || f.venueOrderId === opts.venueOrderId)
      .sort((a, b) => a.time - b.time);
  },

  async orders(ctx) {
    const byId = new Map<string, VenueOrder>();
    const open = await signed(ctx, 'GET', '/fapi/v3/openOrders', [], orders);
    for (const w of open) byId.set(String(w.orderId), toVenueOrder(w));
    for (const spec of ASTER_SYMBOLS) {
      const all = await signed(
        ctx,
        'GET',
        '/fapi/v3/allOrders',
        [
          ['symbol', spec.venueSymbol!],
          ['limit', String(PAGE)],
        ],
        orders,
      );
      for (const w of all) byId.set(String(w.orderId), toVenueOrder(w));
    }
    return [...byId.values()];
  },

  async account(ctx) {
    const totals = await signed(ctx, 'GET', '/fapi/v3/accountWithJoinMargin', [], wireAccountSchema);
    return toVenueAccount(totals, await signed(ctx, 'GET', '/fapi/v3/positionRisk', [], wirePositionRiskSchema));
  },

  authorizationRequest(args) {
    const action: RegistrationFields = {
      user: args.owner,
      nonce: String(BigInt(args.nonce) * 1000n),
      agentName: safeAgentName(args.agentName),
      agentAddress: args.agentAddress,
      expired: String(args.expiresAt),
      signatureChainId: String(REGISTRATION_CHAIN_ID),
      canSpotTrade: 'false',
      canPerpTrade: 'true',
      canWithdraw: 'false',
    };
    return {
      kind: 'eip712',
      typedData: {
        domain: { ...asterDomain(REGISTRATION_CHAIN_ID) },
        types: { EIP712Domain: EIP712_DOMAIN_TYPE, Message: [...MESSAGE_TYPES.Message] },
        primaryType: 'Message',
        message: { msg: registrationMsg(action) },
      },
      action: { ...action },
    };
  },

  async verifyAuthorization({ owner, request, signature }) {
    try {
      const f = registrationFields(request);
      if (f.user.toLowerCase() !== owner.toLowerCase()) return false;
      const who = await recoverSigner(registrationMsg(f), signature as Hex, Number(f.signatureChainId));
      return who === owner.toLowerCase();
    } catch {
      return false;
    }
  },

  async submitAuthorization(ctx, { request, signature }) {
    const f = registrationFields(request);
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new VenueRejected('Signature for this request is not valid.');
    await send(
      ctx,
      'POST',
      '/fapi/v3/registerAndApproveAgent',
      `${registrationMsg(f)}&signature=${signature}`,
      z.unknown(),
    );
    return undefined;
  },
};

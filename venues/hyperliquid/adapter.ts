/**
 * The Hyperliquid adapter (docs/venues.md §1): orders and cancels are L1 actions signed by the
 * agent key (phantom agent, signing.ts) and posted to `POST /exchange`; reads go to `POST /info`
 * with the OWNER's (master) address, never the agent's:
 * - place → `{type:"order", orders:[wire], grouping:"na"}`; each status `resting` / `filled` /
 *   `error` (error → {@link VenueRejected} with the venue's text);
 * - findByClientOrderId / status → `{type:"orderStatus", user, oid: cloid | oid}`;
 * - cancel → `{type:"cancel", cancels:[{a, o}]}`, then the order's final state;
 * - fills → `{type:"userFillsByTime", user, startTime}` (paged by time, 2000 per answer);
 * - orders → `{type:"historicalOrders", user}` (includes orders placed in Hyperliquid's own UI);
 * - account → `{type:"clearinghouseState", user}` (equity, margin used, withdrawable, open positions).
 * Authorisation: the owner signs `HyperliquidTransaction:ApproveAgent` (user-signed, chain id
 * `0x66eee`) naming the agent `"<agentName> valid_until <expiresAt ms>"` — the venue's convention
 * for an expiring API wallet (it reports the expiry back as `validUntil` in `extraAgents`; the
 * third-party Rust SDK df-hyperliquid-core writes the same `"desk valid_until <ms>"` form and
 * caps it at 180 days) — and {@link hyperliquidAdapter.submitAuthorization} posts `approveAgent`.
 * Client order id: `cloid` = `0x` + first 32 hex of sha256(intentId) (wire.ts).
 * Self-signed orders (docs/api.md §3.1): the same `order` action, signed by the owner's own wallet
 * with the nonce allocated at compose ({@link hyperliquidAdapter.selfSigned}).
 * HTTP: 429 and 5xx throw a plain Error (retried by the activity); other non-2xx answers and
 * `{"status":"err"}` bodies throw VenueRejected with the venue's text.
 */
import { type Hex } from 'viem';
import { recoverTypedDataSigner } from '../evm-recover.js';
import { z } from 'zod';
import { checked, fetchText, parseJson, venueUrl } from '../http.js';
import { VenueRejected } from '../types.js';
import type {
  AuthorizationRequest,
  VenueAdapter,
  VenueContext,
  VenueFill,
  VenueOrder,
  VenueOrderRequest,
} from '../types.js';
import {
  actionHash,
  agentNameWithExpiry,
  EIP712_DOMAIN_TYPE,
  HYPERLIQUID_CHAIN,
  l1TypedData,
  signL1Action,
  SIGNATURE_CHAIN_ID,
  splitSignature,
  userSignedTypedData,
  type HlSignature,
} from './signing.js';
import {
  averagePrice,
  clearinghouseStateSchema,
  cloidFromIntentId,
  exchangeAnswerSchema,
  orderStatusAnswerSchema,
  orderWire,
  specOf,
  toVenueAccount,
  toVenueFill,
  toVenueOrder,
  toWire,
  wireFillSchema,
  wireOrderWithStatusSchema,
  type OrderWire,
  type WireFill,
} from './wire.js';

/** Most fills one `userFillsByTime` answer holds (the venue's page size). */
const FILLS_PAGE = 2000;

/** The venue's refusal body `{"status":"err","response":…}`. */
const refusal = z.looseObject({ status: z.literal('err'), response: z.unknown() });

/**
 * Posts JSON to `/exchange` or `/info`; the answer checked against `schema`.
 * @throws Error on 429, 5xx, a non-JSON or unexpected body (retryable); VenueRejected with the
 *   venue's text on another non-2xx answer or a `{"status":"err"}` body.
 */
async function post<S extends z.ZodType>(
  ctx: Pick<VenueContext, 'baseUrl' | 'fetch'>,
  path: '/exchange' | '/info',
  body: unknown,
  schema: S,
): Promise<z.output<S>> {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await fetchText(ctx, venueUrl(ctx.baseUrl, path), init);
  if (res.status === 429 || res.status >= 500)
    throw new Error(`Hyperliquid ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (!res.ok) throw new VenueRejected(res.text || `HTTP ${res.status}`);
  const json = parseJson(res.text);
  if (json === undefined) throw new Error(`Hyperliquid ${path} answered non-JSON: ${res.text.slice(0, 300)}`);
  const err = refusal.safeParse(json);
  if (err.success) throw new VenueRejected(String(err.data.response));
  return checked(schema, json, `Hyperliquid ${path}`);
}

/** Posts a signed L1 action; returns the `response.data` of an ok answer (undefined when absent). */
async function postAction(ctx: VenueContext, action: Record<string, unknown>, nonce: bigint, signature: HlSignature) {
  const body = { action, nonce: Number(nonce), signature, vaultAddress: null, expiresAfter: null };
  const json = await post(ctx, '/exchange', body, exchangeAnswerSchema);
  return json?.response?.data;
}

/** Signs and posts an L1 action for the context's agent; returns the `response.data` of an ok answer (undefined when absent). */
async function exchange(ctx: VenueContext, action: Record<string, unknown>) {
  if (ctx.agent.kind !== 'evm') throw new Error('Hyperliquid needs an EVM agent key');
  const nonce = await ctx.nextNonce('ms');
  return postAction(
    ctx,
    action,
    nonce,
    await signL1Action(ctx.agent.privateKey, action, nonce, { network: ctx.network }),
  );
}

/** The `order` action of one order (key order as signed: type, orders, grouping). */
const orderAction = (order: VenueOrderRequest) => ({ type: 'order', orders: [orderWire(order)], grouping: 'na' });

/** The first status of an action answer's data, or undefined. */
const firstStatus = (data: Awaited<ReturnType<typeof postAction>>) => data?.statuses?.[0];
/** A status's error text, when it is a refusal. */
const errorOf = (st: ReturnType<typeof firstStatus>) =>
  st && typeof st === 'object' && st.error !== undefined ? st.error : undefined;

/** All fills of the owner since `startTime` (inclusive), oldest first, following the 2000-fill pages. */
async function allFills(ctx: VenueContext, startTime: number): Promise<WireFill[]> {
  const seen = new Map<string, WireFill>();
  let from = startTime;
  for (;;) {
    const page = await post(
      ctx,
      '/info',
      { type: 'userFillsByTime', user: ctx.owner, startTime: from },
      z.array(wireFillSchema),
    );
    for (const f of page) seen.set(`${f.tid}:${f.oid}`, f);
    if (page.length < FILLS_PAGE) break;
    const last = Math.max(...page.map((f) => f.time));
    if (last <= from) break;
    from = last;
  }
  return [...seen.values()].sort((a, b) => a.time - b.time || a.tid - b.tid);
}

/** `orderStatus` of one order (cloid or numeric oid), with its average fill price, or null when unknown. */
async function orderStatus(ctx: VenueContext, oid: string | number): Promise<VenueOrder | null> {
  const json = await post(ctx, '/info', { type: 'orderStatus', user: ctx.owner, oid }, orderStatusAnswerSchema);
  if (json?.status !== 'order' || !json.order) return null;
  const w = json.order;
  const filled = toWire(w.order.origSz) !== toWire(w.order.sz);
  const avg = filled
    ? averagePrice((await allFills(ctx, w.order.timestamp)).filter((f) => f.oid === w.order.oid))
    : null;
  return toVenueOrder(w, avg);
}

/** What the owner's wallet signs: the ApproveAgent typed data (with EIP712Domain, for eth_signTypedData_v4) and the action to post. */
function approveAgentRequest(args: {
  agentAddress: string;
  agentName: string;
  expiresAt: number;
  nonce: number;
  network: 'mainnet' | 'testnet';
}): AuthorizationRequest & { kind: 'eip712' } {
  const action = {
    type: 'approveAgent',
    signatureChainId: SIGNATURE_CHAIN_ID,
    hyperliquidChain: HYPERLIQUID_CHAIN[args.network],
    agentAddress: args.agentAddress,
    agentName: agentNameWithExpiry(args.agentName, args.expiresAt),
    nonce: args.nonce,
  };
  const td = userSignedTypedData('HyperliquidTransaction:ApproveAgent', action);
  return {
    kind: 'eip712',
    typedData: {
      domain: { ...td.domain },
      types: { EIP712Domain: EIP712_DOMAIN_TYPE, ...td.types },
      primaryType: td.primaryType,
      message: td.message,
    },
    action,
  };
}

/** The approveAgent action to post, rebuilt from the SIGNED typed data (so what is posted is what was signed). */
function approveAction(request: AuthorizationRequest): Record<string, unknown> {
  if (request.kind !== 'eip712' || request.typedData.primaryType !== 'HyperliquidTransaction:ApproveAgent')
    throw new VenueRejected('not a Hyperliquid ApproveAgent authorisation');
  const m = request.typedData.message;
  const chainId = Number(request.typedData.domain.chainId);
  return {
    type: 'approveAgent',
    signatureChainId: `0x${chainId.toString(16)}`,
    hyperliquidChain: m.hyperliquidChain,
    agentAddress: m.agentAddress,
    agentName: m.agentName,
    nonce: m.nonce,
  };
}

/**
 * The venue's view of an order just sent (`wire` as sent, `data` the `order` answer's data): filled
 * or resting from its status, else read back by cloid (grouped TP/SL answer without an oid).
 * @throws VenueRejected with the venue's text when the status is an error.
 */
async function placed(
  ctx: VenueContext,
  order: VenueOrderRequest,
  wire: OrderWire,
  data: Awaited<ReturnType<typeof postAction>>,
): Promise<VenueOrder> {
  const st = firstStatus(data);
  const error = errorOf(st);
  if (error !== undefined) throw new VenueRejected(error);
  const base = {
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    type: order.type,
    qty: wire.s,
    price: wire.p,
    updatedAt: Date.now(),
  };
  if (typeof st === 'object' && st.filled) {
    const { oid, totalSz, avgPx } = st.filled;
    return {
      ...base,
      venueOrderId: String(oid),
      status: 'filled',
      filledQty: toWire(totalSz),
      avgFillPrice: toWire(avgPx),
    };
  }
  if (typeof st === 'object' && st.resting) {
    return { ...base, venueOrderId: String(st.resting.oid), status: 'open', filledQty: '0', avgFillPrice: null };
  }
  // "waitingForTrigger" / "waitingForFill" (grouped TP/SL) carry no oid: read the order back by cloid.
  const found = await orderStatus(ctx, order.clientOrderId);
  if (!found)
    throw new Error(
      `Hyperliquid accepted the order without an oid (${JSON.stringify(st)}) and orderStatus does not know ${order.clientOrderId}`,
    );
  return found;
}

/** The Hyperliquid venue adapter (see the module comment for the wire calls). */
export const hyperliquidAdapter: VenueAdapter = {
  venue: 'hyperliquid',

  clientOrderId: cloidFromIntentId,

  async place(ctx, order) {
    const action = orderAction(order);
    return placed(ctx, order, action.orders[0], await exchange(ctx, action));
  },

  /**
   * Self-signed orders: the owner's own wallet signs the `order` action as the phantom agent
   * (`Agent { source, connectionId }` over the action hash with the nonce allocated at compose);
   * the venue applies an L1 action to the signer's master, so only the owner's wallet may sign.
   */
  selfSigned: {
    signer: 'owner',
    typedData(order, auth, network) {
      const td = l1TypedData(actionHash(orderAction(order), auth.nonce), network);
      return {
        domain: { ...td.domain },
        types: { Agent: td.types.Agent.map((f) => ({ ...f })) },
        primaryType: td.primaryType,
        message: { ...td.message },
      };
    },
    async place(ctx, order, auth, signature) {
      const action = orderAction(order);
      return placed(ctx, order, action.orders[0], await postAction(ctx, action, auth.nonce, splitSignature(signature)));
    },
  },

  async findByClientOrderId(ctx, _symbol, clientOrderId) {
    return orderStatus(ctx, clientOrderId);
  },

  async status(ctx, _symbol, venueOrderId) {
    if (!/^\d+$/.test(venueOrderId)) return null;
    return orderStatus(ctx, Number(venueOrderId));
  },

  async cancel(ctx, symbol, venueOrderId) {
    const spec = specOf(symbol);
    const error = errorOf(
      firstStatus(
        await exchange(ctx, { type: 'cancel', cancels: [{ a: Number(spec.venueSymbol), o: Number(venueOrderId) }] }),
      ),
    );
    const after = await orderStatus(ctx, Number(venueOrderId));
    if (error !== undefined) {
      // Already filled or canceled: the final state is the answer; otherwise the refusal stands.
      if (after && after.status !== 'open' && after.status !== 'triggered') return after;
      throw new VenueRejected(error);
    }
    if (!after) throw new Error(`Hyperliquid canceled ${venueOrderId} but orderStatus does not know it`);
    return after;
  },

  async fills(ctx, opts) {
    const list = await allFills(ctx, opts.sinceMs);
    return list
      .filter((f) => f.time >= opts.sinceMs)
      .map(toVenueFill)
      .filter(
        (f: VenueFill) =>
          (!opts.symbol || f.symbol === opts.symbol) && (!opts.venueOrderId || f.venueOrderId === opts.venueOrderId),
      );
  },

  async orders(ctx) {
    const list = await post(
      ctx,
      '/info',
      { type: 'historicalOrders', user: ctx.owner },
      z.array(wireOrderWithStatusSchema),
    );
    const withFills = list.filter((w) => toWire(w.order.origSz) !== toWire(w.order.sz));
    const fills = withFills.length ? await allFills(ctx, Math.min(...withFills.map((w) => w.order.timestamp))) : [];
    return list.map((w) => toVenueOrder(w, averagePrice(fills.filter((f) => f.oid === w.order.oid))));
  },

  async account(ctx) {
    return toVenueAccount(
      await post(ctx, '/info', { type: 'clearinghouseState', user: ctx.owner }, clearinghouseStateSchema),
    );
  },

  authorizationRequest(args) {
    return approveAgentRequest(args);
  },

  async verifyAuthorization({ owner, request, signature }) {
    if (request.kind !== 'eip712') return false;
    try {
      const typedData = request.typedData as unknown as Omit<Parameters<typeof recoverTypedDataSigner>[0], 'signature'>;
      return recoverTypedDataSigner({ ...typedData, signature: signature as Hex }) === owner.toLowerCase();
    } catch {
      return false;
    }
  },

  async submitAuthorization(ctx, { request, signature }) {
    const action = approveAction(request);
    const body = {
      action,
      nonce: action.nonce,
      signature: splitSignature(signature),
      vaultAddress: null,
      expiresAfter: null,
    };
    await post(ctx, '/exchange', body, z.unknown());
    return undefined;
  },
};

/**
 * A bracket `bracket-<bracketId>` (docs/api.md §3.3, docs/architecture.md): staged until the parent intent ends with
 * a fill, then two reduce-only legs (take_profit and stop, market on trigger, for the filled size)
 * run as child intent workflows; the first to fill cancels the other (OCO). Moving a leg cancels it
 * and arms a replacement. Attach-to-position arms at once for the open position.
 */
import {
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { newIntent } from '../../../domain/oms/new-intent.js';
import { searchAttributes } from '../../../workflows/shared.definitions.js';
import { intentWorkflowId } from './intent.definitions.js';
import {
  attachUpdate,
  bracketQuery,
  moveBracketUpdate,
  type BracketInput,
  type BracketView,
} from './bracket.definitions.js';
import { intentWorkflow } from './intent.js';

const { exposureOf, cancelWorkingOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '30 days',
  heartbeatTimeout: '10 seconds', // the wait for the parent moves to another worker this soon after a crash
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

const { recordIntent } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds', // short: a crashed worker's activity is retried elsewhere after this
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

/**
 * Patch: a leg's intent is recorded before its workflow starts, so a leg id the bracket shows can be
 * read at once (`GET /oms/intents/{id}`); before, the leg's own workflow recorded it a moment later.
 */
export const RECORD_LEGS_FIRST_PATCH = 'bracket-record-legs-first';

/**
 * Patch: when a leg ends unfilled, the bracket cancels the other, still working leg before it ends (found by
 * `npm run chaos`: a flatten canceled the take-profit, and the stop stayed open with its workflow terminated).
 */
export const CANCEL_LIVE_LEG_PATCH = 'bracket-cancels-live-leg';

type Leg = 'tp' | 'sl';
/** Leg order type per leg: a take-profit takes profit, a stop limits loss; both market on trigger. */
const LEG_TYPE = { tp: 'take_profit', sl: 'stop' } as const;

export async function bracketWorkflow(input: BracketInput): Promise<BracketView> {
  const view: BracketView = {
    bracketId: input.bracketId,
    accountId: input.accountId,
    parentIntentId: input.parentIntentId,
    state: 'staged',
    staged: true,
    symbol: input.symbol,
    tpPrice: input.tpPrice,
    slPrice: input.slPrice,
    legs: { tp: null, sl: null },
    filledLeg: null,
  };
  const handles: Partial<Record<Leg, ChildWorkflowHandle<typeof intentWorkflow>>> = {};
  let exposure: { side: 'buy' | 'sell'; qty: string; leverage: string } | null = null;
  let version = 0;

  const arm = async (leg: Leg) => {
    const trigger = leg === 'tp' ? view.tpPrice : view.slPrice;
    if (!trigger || !exposure) return;
    const intentId = `int_${input.bracketId.replace(/^(int|brk)_/, '')}_${leg}${++version}`;
    const intent = newIntent({
      intentId,
      tenantId: input.tenantId,
      accountId: input.accountId,
      credentialId: input.credentialId,
      clientOrderId: `bracket-${input.bracketId}-${leg}`,
      venue: input.venue,
      symbol: input.symbol,
      side: exposure.side === 'buy' ? 'sell' : 'buy',
      type: LEG_TYPE[leg],
      qty: exposure.qty,
      triggerPrice: trigger,
      reduceOnly: true,
      timeInForce: 'Gtc',
      leverage: exposure.leverage,
    });
    if (patched(RECORD_LEGS_FIRST_PATCH)) await recordIntent(intent);
    handles[leg] = await startChild(intentWorkflow, {
      workflowId: intentWorkflowId(intentId),
      args: [intent],
      typedSearchAttributes: searchAttributes(intent, 'signed_pending_dispatch'),
    });
    view.legs[leg] = intentId;
  };

  setHandler(attachUpdate, () => view);
  setHandler(bracketQuery, () => view);
  setHandler(
    moveBracketUpdate,
    async (move: { tpPrice?: string; slPrice?: string }) => {
      for (const leg of ['tp', 'sl'] as const) {
        const price = leg === 'tp' ? move.tpPrice : move.slPrice;
        if (price === undefined) continue;
        view[leg === 'tp' ? 'tpPrice' : 'slPrice'] = price;
        if (view.state !== 'armed') continue;
        const old = view.legs[leg];
        view.legs[leg] = null;
        if (old) await cancelWorkingOrder(old);
        await arm(leg);
      }
      return view;
    },
    {
      validator: (_move: { tpPrice?: string; slPrice?: string }) => {
        if (view.state === 'closed' || view.state === 'canceled')
          throw ApplicationFailure.create({
            type: 'invalid_state',
            message: `bracket ${input.bracketId} is ${view.state}`,
            nonRetryable: true,
          });
      },
    },
  );

  exposure = await exposureOf(input.parentIntentId, input.accountId, input.symbol);
  if (!exposure) {
    // The parent ended without a fill. The view itself changes (not a copy): a query of the closed workflow, which is
    // what GET /oms/brackets/{id} reads, answers from it. No command changes, so replays of old histories agree.
    Object.assign(view, { state: 'canceled', staged: false });
    return view;
  }
  Object.assign(view, { state: 'armed', staged: false });
  await arm('tp');
  await arm('sl');

  // OCO: wait until a current leg fills; legs replaced by a move end canceled and are ignored.
  let endedLeg: Leg | null = null;
  while (!view.filledLeg) {
    const ended = await Promise.race(
      (['tp', 'sl'] as const).filter((l) => handles[l]).map((l) => handles[l]!.result().then((r) => ({ leg: l, r }))),
    );
    if (ended.r.state === 'filled' && view.legs[ended.leg] === ended.r.intentId) view.filledLeg = ended.leg;
    else if (view.legs[ended.leg] === ended.r.intentId) {
      endedLeg = ended.leg; // the live leg ended unfilled (e.g. canceled by hand, or by a flatten)
      break;
    } else await condition(() => view.legs[ended.leg] !== null);
  }
  // The leg still working is canceled before the bracket ends (its workflow, a child, would otherwise be
  // terminated with the bracket and leave its order open). Before the patch, a leg that ended unfilled
  // made the bracket cancel that same leg again and leave the other one working.
  const other = (patched(CANCEL_LIVE_LEG_PATCH) ? (view.filledLeg ?? endedLeg) : view.filledLeg) === 'tp' ? 'sl' : 'tp';
  if (view.legs[other]) await cancelWorkingOrder(view.legs[other]);
  Object.assign(view, { state: view.filledLeg ? 'closed' : 'canceled' });
  return view;
}

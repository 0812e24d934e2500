/**
 * The hourly funding run `funding-<venue>-<hourIso>` (docs/api.md §4.3, §4.7), started every hour by the
 * Temporal Schedule `funding-<venue>` (worker/schedules.ts): look up the hour's recorded rates,
 * find the accounts holding open perps, pay each one. Every payment is idempotent per account,
 * symbol and hour, so a retried activity or a rerun of the hour pays nothing twice. Since the patch
 * `funding-history-bound`, a run whose history reaches its bound (about six events per account paid) continues
 * as new with the accounts still to pay and the result so far, so an hour with many accounts stays within
 * Temporal's history limit.
 */
import { ApplicationFailure, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { floorHour, HOUR_MS } from '../../../domain/market/funding.js';
import { HistoryBound } from '../../../workflows/continue-as-new.js';
import { SCHEDULED_START, type FundingInput, type FundingResult } from './funding.definitions.js';

const { fundingRates, accountsWithPositions, payFunding } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

/** Patch id of continuing as new once the history reaches its bound (issue 14); before it a run paid every account in one history. */
const BOUND_PATCH = 'funding-history-bound';

/**
 * A funding run's input as the workflow sees it: the Schedule's (funding.definitions.ts) plus what a run that
 * continues as new carries. `historyBound`: events a run's history may reach (workflows/continue-as-new.ts; unset:
 * the worker's `WORKFLOW_HISTORY_BOUND`). `resume`: the hour's result so far (`amountUsd` the sum paid so far) and
 * the accounts still to pay, in order; the new run looks nothing up again.
 */
type FundingRun = FundingInput & {
  historyBound?: number;
  resume?: { result: FundingResult; remaining: string[] };
};

/** The hour, its rates and the accounts holding open perps: the start of a run that is not a continuation. */
async function openHour(input: FundingInput): Promise<{ result: FundingResult; remaining: string[] }> {
  const scheduled = workflowInfo().typedSearchAttributes.get(SCHEDULED_START);
  const hourIso = input.hourIso ?? new Date(floorHour((scheduled ?? workflowInfo().startTime).getTime())).toISOString();
  if (Date.parse(hourIso) % HOUR_MS !== 0)
    throw ApplicationFailure.nonRetryable(`funding hour ${hourIso} is not on the hour`, 'funding_hour_invalid');

  const rates = await fundingRates(input.venue, hourIso);
  const accountIds = await accountsWithPositions(input.venue, input.tenantId ?? null);
  const result: FundingResult = {
    venue: input.venue,
    hourIso,
    rates,
    accounts: accountIds.length,
    payments: 0,
    amountUsd: '0',
    skipped: [],
  };
  return { result, remaining: accountIds };
}

export async function fundingWorkflow(input: FundingRun): Promise<FundingResult> {
  const { result, remaining } = input.resume ?? (await openHour(input));
  const bound = new HistoryBound(BOUND_PATCH, input.historyBound);
  let total = new Decimal(result.amountUsd);
  for (const [i, accountId] of remaining.entries()) {
    if (bound.reached && (await bound.check())) {
      result.amountUsd = fmt(total);
      const { resume: _resume, historyBound: _bound, ...schedule } = input;
      return continueAsNew<typeof fundingWorkflow>({
        ...schedule,
        ...bound.carried(),
        resume: { result, remaining: remaining.slice(i) },
      });
    }
    const paid = await payFunding(accountId, result.venue, result.hourIso, result.rates);
    result.payments += paid.payments;
    if (paid.skipped.length) result.skipped.push({ accountId, symbols: paid.skipped });
    total = total.plus(paid.amountUsd);
  }
  result.amountUsd = fmt(total);
  return result;
}

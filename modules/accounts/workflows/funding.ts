/**
 * The hourly funding run `funding-<venue>-<hourIso>` (docs/api.md §4.3, §4.7), started every hour by the
 * Temporal Schedule `funding-<venue>` (worker/schedules.ts): look up the hour's recorded rates,
 * find the accounts holding open perps, pay each one. Every payment is idempotent per account,
 * symbol and hour, so a retried activity or a rerun of the hour pays nothing twice.
 */
import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import { Decimal, fmt } from '../../../domain/decimal.js';
import { floorHour, HOUR_MS } from '../../../domain/market/funding.js';
import { SCHEDULED_START, type FundingInput, type FundingResult } from './funding.definitions.js';

const { fundingRates, accountsWithPositions, payFunding } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

export async function fundingWorkflow(input: FundingInput): Promise<FundingResult> {
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
  let total = new Decimal(0);
  for (const accountId of accountIds) {
    const paid = await payFunding(accountId, input.venue, hourIso, rates);
    result.payments += paid.payments;
    if (paid.skipped.length) result.skipped.push({ accountId, symbols: paid.skipped });
    total = total.plus(paid.amountUsd);
  }
  result.amountUsd = fmt(total);
  return result;
}

/**
 * Schemas of the trader's challenges (docs/api.md §3.5; issue 6): buy a challenge, read it. Payouts:
 * payouts.schemas.ts.
 */
import { z } from 'zod';
import { PROP_ACCOUNT_STATUSES, propAccountRecordFields } from '../prop-accounts.schemas.js';

export const challengeParams = z.object({ id: z.string().min(1).max(255) });

export const buyChallengeBody = z
  .object({ templateId: z.string().min(1).max(255).meta({ description: 'A challenge template of a live firm' }) })
  .meta({ id: 'BuyChallenge' });

export const challengeView = z
  .object({
    propAccountId: z.string(),
    firmId: z.string(),
    templateId: z.string(),
    accountId: z
      .string()
      .meta({ description: 'The challenge’s own trading account (paper venue), funded with the account size' }),
    status: z.enum(PROP_ACCOUNT_STATUSES),
    startingBalanceUsd: z.string(),
    peakEquityUsd: z.string(),
    tradingDays: z.number().int(),
    breachReason: z.string().nullable(),
    payoutCeilingUsd: z.string().nullable().meta({ description: 'Recorded at a pass: profit × payout split, USD' }),
    ...propAccountRecordFields,
    deposit: z
      .object({
        chainId: z.number().int(),
        instance: z.string().meta({ description: 'The firm’s PropInstance: the deposit goes straight to it' }),
        stablecoin: z.string(),
        amountUsd: z.string(),
        amountUnits: z.string().meta({ description: 'Stablecoin base units (6 decimals)' }),
        propAccountRef: z
          .string()
          .meta({ description: 'bytes32 argument of `deposit`: keccak256 of the prop account id' }),
        calls: z.array(z.string()).meta({ description: 'What the payer’s wallet sends, in order' }),
      })
      .nullable(),
  })
  .meta({ id: 'Challenge' });

/** `GET /prop/challenges`: the caller's challenges, newest first. */
export const challengeListView = z.object({ data: z.array(challengeView) });

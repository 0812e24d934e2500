/**
 * Schemas of the challenge catalogue (docs/api.md §4.8 "Traders' side of the prop firm"): what a trader can
 * buy, one offer per challenge template of a live firm of its tenant, with the terms and where the price is paid.
 */
import { z } from 'zod';
import { listPage, listQuery } from '../../../../api/operator-common.schemas.js';

export const offerListQuery = listQuery.extend({
  firmId: z.string().min(1).max(255).optional().meta({ description: 'Only this firm’s offers' }),
});

const offerView = z
  .object({
    templateId: z.string().meta({ description: 'What `POST /api/v1/prop/challenges` `{ templateId }` buys' }),
    firmId: z.string(),
    firmName: z.string(),
    name: z.string(),
    priceUsd: z
      .string()
      .meta({ description: 'Challenge price, USD: the on-chain deposit into the firm’s PropInstance' }),
    accountSizeUsd: z.string().meta({ description: 'Starting balance of the challenge’s paper account, USD' }),
    profitTargetPct: z.string().meta({ description: 'Profit to pass, fraction of the account size ("0.08" = 8 %)' }),
    maxDailyLossPct: z
      .string()
      .meta({ description: 'Largest loss from the UTC day’s starting equity, fraction of the account size' }),
    maxDrawdownPct: z.string().meta({ description: 'Largest fall from the peak equity, fraction of the account size' }),
    minTradingDays: z.number().int().meta({ description: 'UTC days with at least one fill needed to pass' }),
    payoutSplitPct: z.string().meta({ description: 'The trader’s share of the profit ("0.8" = 80 %)' }),
    venue: z.string().meta({ description: 'Where the challenge account trades (`paper`: the platform’s engine)' }),
    rulesHash: z.string().meta({
      description: 'keccak256 of the firm’s canonical rules, committed on-chain (GET /api/prop/transparency/{firmId})',
    }),
    payment: z
      .object({
        chainId: z.number().int(),
        stablecoin: z.string().meta({ description: 'The ERC-20 the price is paid in (6 decimals)' }),
        instance: z.string().meta({ description: 'The firm’s PropInstance: the deposit goes straight to it' }),
        amountUnits: z.string().meta({ description: 'The price in stablecoin base units' }),
      })
      .meta({ description: 'Where the price is paid once bought (the challenge’s `deposit` gives the exact calls)' }),
    createdAt: z.string(),
  })
  .meta({ id: 'PropOffer' });

export const offerPage = listPage('PropOfferPage', offerView);

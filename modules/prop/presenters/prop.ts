/**
 * The prop firm's rows as the API shows them (docs/api.md §3.5, §4.8): challenge templates, risk profiles,
 * trading groups, prop accounts (the operator's view), offers and challenges (the trader's view: what it can
 * buy, and what it bought with the deposit its wallet sends).
 */
import { idBytes32 } from '../../../domain/prop/commitments.js';
import { templateRules, usdToUnits } from '../../../domain/prop/rules.js';
import type { FirmRow, PropAccountRow, PropTemplateRow } from '../../../db/entities.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** A challenge template (prop-templates.schemas.ts `templateView`): its rules as the firm commits them. */
export function toTemplateView(t: PropTemplateRow) {
  return {
    id: t.id,
    firmId: t.firmId,
    name: t.name,
    ...templateRules(t),
    venue: t.venue,
    tradingGroupId: t.tradingGroupId ?? null,
    riskProfileId: t.riskProfileId ?? null,
    archived: t.archived,
    createdAt: new Date(t.createdAt).toISOString(),
  };
}

/**
 * A template of a live firm as a trader shopping for a challenge sees it (offers.schemas.ts `offerView`):
 * its terms and where the price is paid, without the operator's fields (trading group, risk profile,
 * archived). `firm` must be deployed (its instance and rules hash set).
 */
export function toOfferView(t: PropTemplateRow, firm: FirmRow) {
  return {
    templateId: t.id,
    firmId: firm.id,
    firmName: firm.name,
    name: t.name,
    ...templateRules(t),
    venue: t.venue,
    rulesHash: firm.rulesHash!,
    payment: {
      chainId: firm.chainId,
      stablecoin: firm.stablecoinAddress,
      instance: firm.instanceAddress!,
      amountUnits: usdToUnits(t.priceUsd).toString(),
    },
    createdAt: new Date(t.createdAt).toISOString(),
  };
}

/** A risk profile (risk-profiles.schemas.ts `riskProfileView`): notional limits, USD, null = no limit. */
export function toRiskProfileView(r: {
  id: string;
  name: string;
  maxOrderNotionalUsd?: string | null;
  maxPositionNotionalUsd?: string | null;
  createdAt: Date;
}) {
  return {
    id: r.id,
    name: r.name,
    maxOrderNotionalUsd: r.maxOrderNotionalUsd ?? null,
    maxPositionNotionalUsd: r.maxPositionNotionalUsd ?? null,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

/** A trading group (trading-groups.schemas.ts `tradingGroupView`): venue slug → maximum leverage. */
export function toTradingGroupView(r: {
  id: string;
  name: string;
  leverageCaps: Record<string, number>;
  createdAt: Date;
}) {
  return { id: r.id, name: r.name, leverageCaps: r.leverageCaps, createdAt: new Date(r.createdAt).toISOString() };
}

/** A prop account as the operator sees it (prop-accounts.schemas.ts `propAccountViewSchema`). */
export function propAccountView(pa: PropAccountRow) {
  return {
    id: pa.id,
    firmId: pa.firmId,
    templateId: pa.templateId,
    accountId: pa.accountId,
    ownerId: pa.ownerId,
    status: pa.status as 'active',
    startingBalanceUsd: pa.startingBalanceUsd,
    peakEquityUsd: pa.peakEquityUsd,
    tradingDays: pa.tradingDays,
    breachReason: pa.breachReason ?? null,
    payoutCeilingUsd: pa.payoutCeilingUsd ?? null,
    paidOutUsd: pa.paidOutUsd,
    attempt: pa.attempt,
    depositTxHash: pa.depositTxHash ?? null,
    passedAt: iso(pa.passedAt),
    breachedAt: iso(pa.breachedAt),
    createdAt: new Date(pa.createdAt).toISOString(),
  };
}

/**
 * A challenge as its trader sees it (challenges.schemas.ts `challengeView`): the prop account without
 * the owner, and `deposit`, what the payer's wallet sends once the firm is deployed (approve the
 * stablecoin, then `deposit(propAccountRef, amount)` on the firm's PropInstance), else null.
 */
export function toChallengeView(pa: PropAccountRow, firm: FirmRow, template: PropTemplateRow) {
  const units = usdToUnits(template.priceUsd);
  const { id, ownerId: _owner, ...rest } = propAccountView(pa);
  return {
    propAccountId: id,
    ...rest,
    deposit: firm.instanceAddress
      ? {
          chainId: firm.chainId,
          instance: firm.instanceAddress,
          stablecoin: firm.stablecoinAddress,
          amountUsd: template.priceUsd,
          amountUnits: units.toString(),
          propAccountRef: idBytes32(pa.id),
          calls: [
            `${firm.stablecoinAddress}.approve(${firm.instanceAddress}, ${units})`,
            `${firm.instanceAddress}.deposit(${idBytes32(pa.id)}, ${units})`,
          ],
        }
      : null,
  };
}

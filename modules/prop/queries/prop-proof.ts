/**
 * Builds prop-firm transparency bundles (docs/api.md §1, §2.12, §4.9): the on-chain treasury, read live
 * by the worker (workflow `transparency-<all|firmId>-<window>`: it first records the
 * firm's collateral postings in the ledger, then reads the instance; the api never calls the
 * chain), next to the ledger totals from PostgreSQL, with the reconciliation and solvency of
 * domain/prop/transparency.ts. A chain that cannot be read gives `unavailable`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { Decimal, ZERO, fmt } from '../../../domain/decimal.js';
import { proveFirm, type LedgerTotals } from '../../../domain/prop/transparency.js';
import { PropAccount, PropLedgerEntry, type FirmRow } from '../../../db/entities.js';
import { TRANSPARENCY_CACHE_MS, transparencyWorkflowId } from '../workflows/transparency.definitions.js';
import { transparencyWorkflow } from '../workflows/transparency.js';

/** What the worker read of one firm's treasury (the result of `transparencyWorkflow`, one per firm). */
type TreasuryRead = Awaited<ReturnType<typeof transparencyWorkflow>>[number];

/** Reads the deployed firms' treasuries through the worker (one short workflow per window). */
async function readChain(
  temporal: Client,
  taskQueue: string,
  scope: string,
  firms: FirmRow[],
): Promise<Map<string, TreasuryRead>> {
  const deployed = firms
    .filter((f) => f.instanceAddress)
    .map((f) => ({
      tenantId: f.tenantId,
      firmId: f.id,
      instanceAddress: f.instanceAddress!,
      deployBlock: f.deployBlock ?? null,
    }));
  if (!deployed.length) return new Map();
  const windowStart = Math.floor(Date.now() / TRANSPARENCY_CACHE_MS) * TRANSPARENCY_CACHE_MS;
  let reads: TreasuryRead[];
  try {
    reads = await temporal.workflow.execute(transparencyWorkflow, {
      workflowId: transparencyWorkflowId(scope, windowStart),
      taskQueue,
      args: [deployed],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowExecutionTimeout: '20 seconds',
    });
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    // The read did not finish within its 20 s (no worker took it, or it failed): every figure it owed is `unavailable`.
    const readAt = new Date().toISOString();
    const error = `the on-chain read did not complete: ${err.cause?.message ?? err.message}`;
    reads = deployed.map((f) => ({ firmId: f.firmId, ok: false as const, error, readAt }));
  }
  return new Map(reads.map((r) => [r.firmId, r]));
}

/**
 * One bundle per firm, in order (schema: modules/prop/routes/prop/transparency.schemas.ts `firmBundle`). Firms may
 * belong to several tenants (the public index spans the platform); `scope` names the read in the
 * workflow id (`all`, or a firm id).
 */
export async function firmBundles(
  deps: { temporal: Client; taskQueue: string },
  em: EntityManager,
  firms: FirmRow[],
  scope: string,
) {
  const chain = await readChain(deps.temporal, deps.taskQueue, scope, firms); // first: it records collateral in the ledger
  const ids = firms.map((f) => f.id);
  const [ledger, accounts] = ids.length
    ? await Promise.all([
        em.find(PropLedgerEntry, { firmId: { $in: ids } }, { fields: ['firmId', 'kind', 'amountUsd'], filters: false }),
        em.find(
          PropAccount,
          { firmId: { $in: ids }, status: { $in: ['passed', 'funded'] } },
          { fields: ['firmId', 'payoutCeilingUsd', 'paidOutUsd'], filters: false },
        ),
      ])
    : [[], []];
  return firms.map((f) => {
    const sum = (kind: string) =>
      fmt(ledger.filter((l) => l.firmId === f.id && l.kind === kind).reduce((s, l) => s.add(l.amountUsd), ZERO));
    const totals: LedgerTotals = {
      payInsUsd: sum('pay_in'),
      collateralUsd: sum('collateral'),
      payoutsUsd: sum('payout'),
      forfeitsUsd: sum('forfeit'),
    };
    const liabilities = fmt(
      accounts
        .filter((a) => a.firmId === f.id)
        .reduce((s, a) => s.add(Decimal.max(new Decimal(a.payoutCeilingUsd ?? '0').sub(a.paidOutUsd), ZERO)), ZERO),
    );
    const read = chain.get(f.id);
    const base = {
      firmId: f.id,
      name: f.name,
      status: f.status,
      chainId: f.chainId,
      addresses: {
        instance: f.instanceAddress ?? null,
        owner: f.ownerAddress,
        stablecoin: f.stablecoinAddress,
        deployTx: f.deployTxHash ?? null,
      },
      rulesHash: f.rulesHash ?? null,
      ledger: totals,
    };
    if (read && !read.ok) {
      const proof = proveFirm(totals, null, liabilities);
      return {
        ...base,
        onChain: null,
        chainError: read.error,
        liabilitiesUsd: proof.liabilitiesUsd,
        reconciliation: { ...proof.reconciliation, status: 'unavailable' as const },
        solvency: 'unavailable' as const,
        coverageRatio: null,
      };
    }
    const proof = proveFirm(totals, read?.ok ? read.treasury : null, liabilities);
    return {
      ...base,
      onChain: proof.treasury && read?.ok ? { ...proof.treasury, readAt: read.readAt } : null,
      liabilitiesUsd: proof.liabilitiesUsd,
      reconciliation: proof.reconciliation,
      solvency: proof.solvency,
      coverageRatio: proof.coverageRatio,
    };
  });
}

/**
 * The chain half of the transparency bundle (docs/api.md §4.9): each deployed firm's PropInstance read
 * live (treasury balance, collateral posted, deposit and payout counters), in USD. Before reading,
 * the operator's `CollateralPosted` events are recorded in the ledger (`collateral`, ref
 * `collateral:<tx>:<logIndex>`, once), so the ledger side of the reconciliation knows them.
 */
import { createPublicClient, http, parseAbiItem, type Address } from 'viem';
import { PropLedgerEntry } from '../../../db/entities.js';
import { scoped } from '../../../db/orm.js';
import { unitsToUsd } from '../../../domain/prop/rules.js';
import type { OnChainTreasury } from '../../../domain/prop/transparency.js';
import { readInstance } from '../chain/index.js';
import { rpcOf, type PropDeps } from './chain-deps.js';

const COLLATERAL_EVENT = parseAbiItem('event CollateralPosted(address indexed from, uint256 amount)');

/** A deployed firm to read. `deployBlock`: where its logs start (decimal string). */
export interface FirmToRead {
  tenantId: string;
  firmId: string;
  instanceAddress: string;
  deployBlock: string | null;
}

/** One firm's on-chain read, or why it failed (an unreachable node is reported, never thrown). */
export type TreasuryRead =
  | { firmId: string; ok: true; treasury: OnChainTreasury; readAt: string }
  | { firmId: string; ok: false; error: string; readAt: string };

export function transparencyActivities(deps: PropDeps) {
  /** Records the firm's collateral postings in the ledger (idempotent by ref). */
  async function syncCollateral(rpcUrl: string, f: FirmToRead): Promise<void> {
    const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
    const logs = await client.getLogs({
      address: f.instanceAddress as Address,
      event: COLLATERAL_EVENT,
      fromBlock: f.deployBlock ? BigInt(f.deployBlock) : 0n,
      toBlock: 'latest',
    });
    if (!logs.length) return;
    const em = scoped(deps.orm, f.tenantId);
    const refs = logs.map((l) => `collateral:${l.transactionHash}:${l.logIndex}`);
    const known = new Set(
      (await em.find(PropLedgerEntry, { ref: { $in: refs } }, { fields: ['ref'] })).map((r) => r.ref),
    );
    logs.forEach((l, i) => {
      if (known.has(refs[i])) return;
      em.create(PropLedgerEntry, {
        id: `pl_col_${l.transactionHash.slice(2, 18)}_${l.logIndex}`,
        tenantId: f.tenantId,
        firmId: f.firmId,
        propAccountId: null,
        kind: 'collateral',
        amountUsd: unitsToUsd(l.args.amount ?? 0n),
        txHash: l.transactionHash,
        ref: refs[i],
      });
    });
    await em.flush();
  }

  return {
    /** Syncs each firm's collateral postings, then reads its treasury, in parallel. */
    async readTreasuries(firms: FirmToRead[]): Promise<TreasuryRead[]> {
      const rpcUrl = rpcOf(deps.chain);
      return Promise.all(
        firms.map(async (f): Promise<TreasuryRead> => {
          const readAt = new Date().toISOString();
          try {
            await syncCollateral(rpcUrl, f);
            const i = await readInstance(rpcUrl, f.instanceAddress as Address);
            return {
              firmId: f.firmId,
              ok: true,
              treasury: {
                treasuryUsd: unitsToUsd(i.treasury),
                collateralUsd: unitsToUsd(i.totalCollateral),
                totalDepositsUsd: unitsToUsd(i.totalDeposits),
                totalPayoutsUsd: unitsToUsd(i.totalPayouts),
              },
              readAt,
            };
          } catch (err) {
            return { firmId: f.firmId, ok: false, error: String((err as Error).message ?? err).split('\n')[0], readAt };
          }
        }),
      );
    },
  };
}

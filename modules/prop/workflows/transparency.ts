/**
 * `transparency-<all | firmId>-<window>`: one live read of the firms' on-chain treasuries for the public
 * transparency routes (docs/api.md §4.9). The api never calls the chain (docs/architecture.md); it runs this short
 * workflow, whose id carries the 30-second cache window so concurrent readers attach to one read.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { FirmToRead, TreasuryRead } from '../activities/transparency.js';

const { readTreasuries } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

export async function transparencyWorkflow(firms: FirmToRead[]): Promise<TreasuryRead[]> {
  return readTreasuries(firms);
}

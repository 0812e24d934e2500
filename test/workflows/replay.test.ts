/**
 * Determinism guard (docs/architecture.md): every saved history in test/workflows/histories/ replays against
 * the current workflow code without a nondeterminism error. Regenerate with
 * `SAVE_HISTORIES=1 npm test`; a change to a workflow's commands goes behind `patched()`.
 */
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR } from '../support/histories.js';

const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));

describe('replay of saved workflow histories', () => {
  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)('%s replays deterministically', async (file) => {
    // Passed as parsed JSON: the worker converts it with its own copy of the protos.
    const history: unknown = JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'));
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { codePath: inject('workflowBundlePath') } },
        history,
        file.replace('.json', ''),
      ),
    ).resolves.toBeUndefined();
  });
});

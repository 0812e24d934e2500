/**
 * Saved workflow histories for the replay test (docs/architecture.md): with `SAVE_HISTORIES=1`, tests that
 * complete a workflow write its history to test/workflows/histories/, in the JSON form of
 * `temporal workflow show --output json` (what `historyFromJSON` reads).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { inject } from 'vitest';
import { resolveTemporalBinary } from '../../scripts/lib/temporal-dev.js';

export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../workflows/histories');

/** Writes the workflow's history as `<name>.json` when SAVE_HISTORIES is set: of its run `runId`, else of its latest run. */
export async function maybeSaveHistory(handle: WorkflowHandle, name: string, runId?: string): Promise<void> {
  if (!process.env.SAVE_HISTORIES) return;
  const json = execFileSync(
    resolveTemporalBinary(),
    [
      'workflow',
      'show',
      '--workflow-id',
      handle.workflowId,
      ...(runId ? ['--run-id', runId] : []),
      '--address',
      inject('temporalAddress'),
      '--output',
      'json',
    ],
    { encoding: 'utf8' },
  );
  mkdirSync(HISTORIES_DIR, { recursive: true });
  writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), json);
}

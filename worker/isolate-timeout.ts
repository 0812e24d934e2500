/**
 * The worker's limit on one call into its workflow sandbox (Temporal's `isolateExecutionTimeout`; config
 * `WORKFLOW_ISOLATE_TIMEOUT_MS`, README "Configuration"). The SDK gives every such call to Node's `vm` with a `timeout`,
 * and Node starts a watchdog thread for each timed call: ~0.3 ms where the call itself takes microseconds, and an order's
 * workflow makes dozens of calls per activation (issue 15: 7.6 s of the workflow thread's 14.7 s busy in a venue bench
 * run). With 0 the worker passes no timeout at all, which the SDK only accepts as patched by
 * patches/@temporalio+worker+1.24.0.patch (patches/README.md; `npm ci` applies it through `postinstall`): without the
 * patch, Node would refuse a timeout of 0 on every call.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { WorkerOptions } from '@temporalio/worker';

/** The text the patch writes where the SDK hands its timeout to Node's `vm`. */
const PATCHED = 'isolateExecutionTimeoutMs || undefined';

/** Whether the installed `@temporalio/worker` runs a sandbox call without a timeout when given 0 (the patch applied). */
export function sandboxTimeoutIsOptional(): boolean {
  const sdkFile = createRequire(import.meta.url).resolve('@temporalio/worker/lib/workflow/reusable-vm.js');
  return readFileSync(sdkFile, 'utf8').includes(PATCHED);
}

/**
 * The `isolateExecutionTimeout` (ms) the worker gives `Worker.create` for the configured `ms`, as options to spread:
 * `ms` itself when it is a limit; 0 (none) when `ms` is 0 and the SDK is patched; otherwise none (the SDK's own 5 s),
 * after `warn` says why.
 */
export function isolateExecutionTimeout(
  ms: number,
  warn: (message: string) => void,
): Pick<WorkerOptions, 'isolateExecutionTimeout'> {
  if (ms > 0 || sandboxTimeoutIsOptional()) return { isolateExecutionTimeout: ms };
  warn(
    'WORKFLOW_ISOLATE_TIMEOUT_MS=0 needs node_modules/@temporalio/worker patched (patches/README.md; npm ci runs it): ' +
      "not patched, so the worker keeps the SDK's 5 s limit and its watchdog thread per sandbox call",
  );
  return {};
}

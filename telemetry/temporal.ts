/**
 * Temporal's share of a trace (README "Operating it → Traces"), from
 * @temporalio/interceptors-opentelemetry: client interceptors put the caller's span context in the
 * headers of start / update-with-start / signal / query; the workflow interceptor modules (bundled
 * into the workflow code) continue it in `RunWorkflow:<type>`, `HandleUpdate:<name>`,
 * `HandleSignal:<name>` and `StartActivity:<type>` spans, exported from the sandbox through the
 * `exporter` sink; the activity interceptor runs each activity in a `RunActivity:<type>` span.
 * Every piece is installed only when tracing is on.
 */
import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from './tracing.js';

const require = createRequire(import.meta.url);

/**
 * The workflow interceptor modules of a traced worker (absolute paths). A worker bundling from
 * `workflowsPath` gets them through `interceptors.workflowModules`; a prebuilt bundle must be built
 * with `bundleWorkflowCode({ workflowInterceptorModules: WORKFLOW_TRACING_MODULES })` (the tests'
 * global setup builds both kinds). They add no workflow commands, so histories recorded with and
 * without them replay either way (test/workflows/replay.test.ts replays both bundles).
 */
export const WORKFLOW_TRACING_MODULES: string[] = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/** Client interceptors for a Temporal `Client` (the api's, the worker's): undefined when tracing is off. */
export function tracingClientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  if (!tracing) return undefined;
  return {
    workflow: [
      new OpenTelemetryWorkflowClientInterceptor({
        tracer: tracing.provider.getTracer('@temporalio/interceptor-client'),
      }),
    ],
  };
}

/**
 * The worker's share: activity interceptors (`RunActivity:<type>` spans, trace ids on activity log
 * lines) and the `exporter` sink that hands workflow spans to the process's span processor.
 * `workflowModules` is for workers that bundle; pass it only without a prebuilt bundle.
 */
export function workerTracing(tracing: Tracing): {
  activity: NonNullable<WorkerInterceptors['activity']>;
  workflowModules: string[];
  sinks: InjectedSinks<OpenTelemetrySinks>;
} {
  const tracer = tracing.provider.getTracer('@temporalio/interceptor-activity');
  return {
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    workflowModules: WORKFLOW_TRACING_MODULES,
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}

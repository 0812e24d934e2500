/**
 * `npm run inspect -- <intentId | workflowId>`: prints one workflow's history readably for support
 * staff: time, event, activity or signal name, and a short summary of inputs and results.
 * Connects to TEMPORAL_ADDRESS (with TEMPORAL_TLS*, TEMPORAL_API_KEY: README "Connecting to a Temporal
 * cluster"), else the dev server of temporal-dev.yml.
 */
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { intentWorkflowId } from '../modules/oms/workflows/intent.definitions.js';
import { loadTemporalDevConfig } from './lib/temporal-dev.js';
import { loadTemporalConfig } from '../config.js';
import { temporalConnectionOptions } from '../temporal-connection.js';

const arg = process.argv[2];
if (!arg) {
  console.error('usage: npm run inspect -- <intentId | workflowId>   e.g. npm run inspect -- int_0d1e2863a8c12928fa05');
  process.exit(2);
}
const workflowId = arg.startsWith('int_') ? intentWorkflowId(arg) : arg;
const cfg = loadTemporalDevConfig();
const target = loadTemporalConfig({
  TEMPORAL_ADDRESS: `${cfg.ip}:${cfg.port}`,
  TEMPORAL_NAMESPACE: cfg.namespace,
  ...process.env,
});
const address = target.address;
const connection = await Connection.connect(temporalConnectionOptions(target));
const client = new Client({ connection, namespace: target.namespace });
const handle = client.workflow.getHandle(workflowId);
const desc = await handle.describe().catch(() => null);
if (!desc) {
  console.error(`no workflow ${workflowId} on ${address}`);
  process.exit(1);
}

const { temporal } = proto;
const EventType = temporal.api.enums.v1.EventType;
const name = (t: number | null | undefined) =>
  (EventType[t ?? 0] ?? String(t)).replace(/^EVENT_TYPE_/, '').toLowerCase();
const decode = (payloads?: proto.temporal.api.common.v1.IPayloads | null) =>
  (payloads?.payloads ?? []).map((p) => {
    try {
      return defaultPayloadConverter.fromPayload(p);
    } catch {
      return '<binary>';
    }
  });
const short = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

console.log(
  `${workflowId}  ${desc.type}  ${desc.status.name}  started ${desc.startTime.toISOString()}${desc.closeTime ? `  closed ${desc.closeTime.toISOString()}` : ''}`,
);
const sa = desc.typedSearchAttributes;
console.log(
  `search attributes: ${sa
    .getAll()
    .map((p) => `${p.key.name}=${String(p.value)}`)
    .join('  ')}\n`,
);

const scheduled = new Map<string, string>();
const history = await handle.fetchHistory();
const t0 =
  Number(history.events?.[0]?.eventTime?.seconds ?? 0) * 1000 +
  Math.floor((history.events?.[0]?.eventTime?.nanos ?? 0) / 1e6);
for (const e of history.events ?? []) {
  const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  let detail = '';
  const a = e.activityTaskScheduledEventAttributes;
  if (a) {
    scheduled.set(String(e.eventId), a.activityType?.name ?? '?');
    detail = `${a.activityType?.name}(${decode(a.input).map(short).join(', ')})`;
  } else if (e.activityTaskCompletedEventAttributes) {
    const c = e.activityTaskCompletedEventAttributes;
    detail = `${scheduled.get(String(c.scheduledEventId))} → ${decode(c.result).map(short).join(', ')}`;
  } else if (e.activityTaskFailedEventAttributes) {
    const f = e.activityTaskFailedEventAttributes;
    detail = `${scheduled.get(String(f.scheduledEventId))} failed: ${f.failure?.message}`;
  } else if (e.markerRecordedEventAttributes) {
    // A local activity (the order's short steps, patch local-order-steps) or a patch marker.
    const m = e.markerRecordedEventAttributes;
    const [data] = decode(m.details?.data) as { activity_type?: string; attempt?: number }[];
    const [patchId] = decode(m.details?.patch_data) as { id?: string }[];
    if (m.markerName === 'core_local_activity')
      detail = m.failure
        ? `local ${data?.activity_type} failed: ${m.failure.message}`
        : `local ${data?.activity_type} → ${decode(m.details?.result).map(short).join(', ')}`;
    else detail = `${m.markerName} ${patchId?.id ?? ''}`;
  } else if (e.workflowExecutionSignaledEventAttributes) {
    const sg = e.workflowExecutionSignaledEventAttributes;
    detail = `${sg.signalName}(${decode(sg.input).map(short).join(', ')})`;
  } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
    detail = `update ${e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name}`;
  } else if (e.workflowExecutionUpdateCompletedEventAttributes) {
    detail = `→ ${decode(e.workflowExecutionUpdateCompletedEventAttributes.outcome?.success).map(short).join(', ')}`;
  } else if (e.upsertWorkflowSearchAttributesEventAttributes) {
    const fields = e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields ?? {};
    detail = Object.entries(fields)
      .map(([k, v]) => `${k}=${short(defaultPayloadConverter.fromPayload(v as never))}`)
      .join(' ');
  } else if (e.workflowExecutionCompletedEventAttributes) {
    detail = `→ ${decode(e.workflowExecutionCompletedEventAttributes.result).map(short).join(', ')}`;
  } else if (e.workflowExecutionStartedEventAttributes) {
    detail = `input ${decode(e.workflowExecutionStartedEventAttributes.input).map(short).join(', ')}`;
  }
  if (/workflow_task_(scheduled|started|completed)/.test(name(e.eventType))) continue;
  console.log(
    `${String(e.eventId).padStart(4)}  +${String(at - t0).padStart(6)} ms  ${name(e.eventType).padEnd(34)} ${detail}`,
  );
}
await connection.close();

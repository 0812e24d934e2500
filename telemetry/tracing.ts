/**
 * The OpenTelemetry tracing SDK of one process (README "Operating it → Traces"): a NodeTracerProvider
 * registered globally with the AsyncLocalStorage context manager and W3C trace-context (+ baggage)
 * propagation, spans batched to an OTLP/HTTP collector (or, in tests, handed one by one to the
 * exporter given), and client spans for outbound HTTP through undici: `fetch`, and the venue calls' `request`
 * (venues/http.ts) (@opentelemetry/instrumentation-undici, through diagnostics_channel, which the undici package
 * publishes on too: no loader hooks, so it works under ESM). Started only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set; otherwise nothing here runs.
 */
import { context, propagation, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from '../config.js';

/** A started tracing SDK: what the HTTP middleware and the Temporal interceptors need. */
export interface Tracing {
  /** The global tracer provider. */
  provider: NodeTracerProvider;
  /** `service.name` plus the SDK's default attributes; workflow spans (exported through a sink) carry it too. */
  resource: Resource;
  /** The processor every span ends in (workflow spans included). */
  spanProcessor: SpanProcessor;
  /** Flushes pending spans, stops the fetch instrumentation and unregisters the global provider, context manager and propagator. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process. With `exporter` (tests: an InMemorySpanExporter) each span is
 * exported as it ends; otherwise spans are batched (BatchSpanProcessor defaults: every 5 s or 512
 * spans) to `<endpoint>/v1/traces` over OTLP/HTTP (JSON encoding). Outbound `fetch` calls get
 * a client span (`POST`, `GET`, ...) only inside a traced operation, so stray polls start no trace.
 * @throws Error when neither `exporter` nor `endpoint` is given, or when a tracer provider is
 * already registered in this process.
 */
export function startTracing(opts: { serviceName: string; endpoint?: string; exporter?: SpanExporter }): Tracing {
  const exporter =
    opts.exporter ??
    (opts.endpoint ? new OTLPTraceExporter({ url: `${opts.endpoint.replace(/\/+$/, '')}/v1/traces` }) : undefined);
  if (!exporter) throw new Error('startTracing needs an OTLP endpoint or an exporter');
  const spanProcessor = opts.exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const resource = new Resource({ ...Resource.default().attributes, [ATTR_SERVICE_NAME]: opts.serviceName });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Defaults: AsyncLocalStorageContextManager; propagators from OTEL_PROPAGATORS, else W3C tracecontext + baggage.
  provider.register();
  if ((trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== provider) {
    void provider.shutdown();
    throw new Error('startTracing: another tracer provider is already registered in this process');
  }
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.setTracerProvider(provider);
  return {
    provider,
    resource,
    spanProcessor,
    async shutdown() {
      undici.disable();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Starts tracing when the configuration names a collector (`OTEL_EXPORTER_OTLP_ENDPOINT`), for the
 * process entry points; `service.name` is `OTEL_SERVICE_NAME`, else `defaultServiceName`.
 * @returns the started SDK, or undefined when tracing is off.
 */
export function tracingFromConfig(config: Config, defaultServiceName: string): Tracing | undefined {
  if (!config.otel.endpoint) return undefined;
  return startTracing({ serviceName: config.otel.serviceName ?? defaultServiceName, endpoint: config.otel.endpoint });
}

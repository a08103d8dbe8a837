// OpenTelemetry traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is
// set: a client's start, the workflow run and every activity share one trace, carried in Temporal
// headers by Temporal's interceptors. Without the variable nothing is set up and nothing is sent,
// and the OpenTelemetry packages are not even loaded (a CLI command that talks to the server starts
// faster without them).
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';

/** The workflow-side interceptors: built into the workflow bundle, a no-op when the worker exports nothing. */
export const TRACING_WORKFLOW_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/** Where traces go, as the environment says (config.environment.telemetry). */
export interface TelemetrySettings {
  otlp_endpoint?: string;
  otlp_traces_endpoint?: string;
  service_name?: string;
}

export function tracingRequested(telemetry: TelemetrySettings): boolean {
  return !!(telemetry.otlp_endpoint || telemetry.otlp_traces_endpoint);
}

/** OTLP/HTTP: the traces endpoint as given, or <base endpoint>/v1/traces. */
export function tracesUrl(telemetry: TelemetrySettings): string {
  return telemetry.otlp_traces_endpoint ?? `${(telemetry.otlp_endpoint ?? '').replace(/\/+$/, '')}/v1/traces`;
}

interface Tracing {
  provider: BasicTracerProvider;
  processor: SpanProcessor;
  resource: Resource;
}

let active: Tracing | undefined;

/**
 * Registers the process-wide tracer provider once (service.name from OTEL_SERVICE_NAME, else the
 * given name). Returns false when tracing is not requested.
 */
export function startTracing(serviceName: string, telemetry: TelemetrySettings): boolean {
  if (active) return true;
  if (!tracingRequested(telemetry)) return false;
  const { Resource } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const resource = new Resource({ 'service.name': telemetry.service_name ?? serviceName });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(telemetry) }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable(), propagator: new W3CTraceContextPropagator() });
  active = { provider, processor, resource };
  return true;
}

/** Sends what is buffered; call before the process exits. */
export async function flushTracing(): Promise<void> {
  await active?.provider.forceFlush();
}

export async function stopTracing(): Promise<void> {
  const current = active;
  active = undefined;
  await current?.provider.shutdown();
  const otel = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  otel.trace.disable();
  otel.context.disable();
  otel.propagation.disable();
}

/** Client interceptors: a span around start/update/signal whose context travels to the workflow. */
export function clientTracingInterceptors(): WorkflowClientInterceptor[] {
  return active ? [new (interceptors().OpenTelemetryWorkflowClientInterceptor)()] : [];
}

/** Activity interceptors that continue the workflow's trace (none without tracing). */
export function activityTracingInterceptors(): ActivityInterceptorsFactory[] {
  if (!active) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = interceptors();
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}

/**
 * The sink the workflow interceptors export spans through. Always registered, so a bundle built
 * with the interceptors runs on a worker without tracing too (its spans are dropped).
 */
export function tracingSinks(): InjectedSinks<Record<string, never>> {
  const { NoopSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { Resource } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const processor = active?.processor ?? new NoopSpanProcessor();
  const resource = active?.resource ?? Resource.empty();
  return { exporter: interceptors().makeWorkflowExporter(processor, resource) } as unknown as InjectedSinks<Record<string, never>>;
}

const interceptors = () => require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');

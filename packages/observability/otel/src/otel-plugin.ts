// otelPlugin: OpenTelemetry traces and metrics for every run, through @opentelemetry/api only.
import { metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api'
import { definePlugin, type Plugin } from '@spindle/core'
import { OtelObserver } from './otel-observer.js'

/** Options of `otelPlugin()`: the tracer and meter providers (the global ones by default) and whether message content is recorded. */
export interface OtelPluginOptions {
  /** Default: the global tracer provider (a no-op until an SDK registers one). */
  tracerProvider?: TracerProvider
  /** Default: the global meter provider (a no-op until an SDK registers one). */
  meterProvider?: MeterProvider
  /**
   * Record message content on spans: the run's input, the model's text, tool arguments and results, all
   * redacted by `extensions.redactor` (the model's text again once joined from its deltas). Off by default:
   * content often holds personal or confidential data.
   */
  captureContent?: boolean
  /** Instrumentation scope name (default `@spindle/otel`). */
  scopeName?: string
}

const version = '0.0.0'

/**
 * Spans following the OpenTelemetry GenAI semantic conventions — `invoke_agent` per run execution, `chat` per
 * model call, `execute_tool` per tool call — and metrics (model call duration and tokens, run duration, steps,
 * tool latency). With no OpenTelemetry SDK registered, the API is a no-op and this costs next to nothing.
 *
 * @example
 * const extensions = new Extensions().use(otelPlugin())
 * // with an SDK: new NodeTracerProvider({ spanProcessors: [...] }).register()
 */
export function otelPlugin(options: OtelPluginOptions = {}): Plugin {
  return definePlugin({
    name: 'otel',
    setup(extensions) {
      const scope = options.scopeName ?? '@spindle/otel'
      const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(scope, version)
      const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(scope, version)
      // Read at each use: a redactor set on the extensions after this plugin still applies.
      extensions.addObserver(new OtelObserver({ tracer, meter, captureContent: options.captureContent ?? false, redactor: () => extensions.redactor }))
    },
  })
}

// @spindle/otel: OpenTelemetry traces (GenAI semantic conventions) and metrics for Spindle runs.
export { otelPlugin, type OtelPluginOptions } from './otel-plugin.js'
export { OtelObserver, type OtelObserverOptions } from './otel-observer.js'
export { runSpanContext } from './trace-identity.js'
export { attributes as genAiAttributes, metricNames } from './gen-ai-attributes.js'

// Test helper: an OpenTelemetry SDK (tracer and meter providers) with an in-memory span exporter and metric reader.
import { AggregationTemporality, type HistogramMetricData, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { otelPlugin, type OtelPluginOptions } from '../index.js'

class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** Providers passed to the plugin explicitly (no global registration, so tests never share state). */
export function telemetry() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new TestMetricReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const spans = () => exporter.getFinishedSpans()
  const histograms = async () => {
    const { resourceMetrics } = await reader.collect()
    const found = new Map<string, HistogramMetricData>()
    for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) found.set(metric.descriptor.name, metric as HistogramMetricData)
    return found
  }
  const plugin = (options: Omit<OtelPluginOptions, 'tracerProvider' | 'meterProvider'> = {}) => otelPlugin({ tracerProvider, meterProvider, ...options })
  return { exporter, spans, histograms, plugin }
}

// The runtime-observer conformance kit on OtelObserver: spec v1, and every event of a real run taken without throwing.
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { describeRuntimeObserver } from '@spindle/testing'
import { OtelObserver } from './index.js'

describeRuntimeObserver(() => {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] })
  return new OtelObserver({ tracer: tracerProvider.getTracer('conformance'), meter: new MeterProvider().getMeter('conformance'), captureContent: true })
})

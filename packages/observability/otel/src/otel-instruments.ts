// The histograms of @spindle/otel; the two GenAI ones carry the bucket advice of the GenAI semantic conventions.
import type { Histogram, Meter } from '@opentelemetry/api'
import { durationBuckets, metricNames, tokenBuckets } from './gen-ai-attributes.js'

export interface Instruments {
  operationDuration: Histogram
  tokenUsage: Histogram
  runDuration: Histogram
  runSteps: Histogram
  toolDuration: Histogram
  gateWait: Histogram
  queueWait: Histogram
}

export function createInstruments(meter: Meter): Instruments {
  return {
    operationDuration: meter.createHistogram(metricNames.operationDuration, {
      unit: 's',
      description: 'GenAI operation duration.',
      advice: { explicitBucketBoundaries: durationBuckets },
    }),
    tokenUsage: meter.createHistogram(metricNames.tokenUsage, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: { explicitBucketBoundaries: tokenBuckets },
    }),
    runDuration: meter.createHistogram(metricNames.runDuration, { unit: 's', description: 'Duration of one execution of a Spindle run (a start or a resume)' }),
    runSteps: meter.createHistogram(metricNames.runSteps, { unit: '{step}', description: 'Model steps of a run when it ends or suspends' }),
    toolDuration: meter.createHistogram(metricNames.toolDuration, { unit: 's', description: 'Latency of a tool execution' }),
    gateWait: meter.createHistogram(metricNames.gateWait, { unit: 'ms', description: 'Time a run (start or resume) waited for its session gate' }),
    queueWait: meter.createHistogram(metricNames.queueWait, {
      unit: 'ms',
      description: 'Time a queued run waited in the run queue before a worker started it',
    }),
  }
}

// Deterministic trace identity of a run: the same trace id and parent span id in every process that runs it.
import { createHash } from 'node:crypto'
import { type SpanContext, TraceFlags } from '@opentelemetry/api'

/**
 * The span context that stands for a run as a whole: trace id and span id derived from the run id (SHA-256).
 * Every execution of the run (its start, and each resume — in this process or another one after a restart)
 * is a child of this context, so they all land in one trace without storing anything. The context itself is
 * never exported as a span: backends show the executions as siblings under it.
 */
export function runSpanContext(runId: string): SpanContext {
  const digest = createHash('sha256').update(`spindle.run:${runId}`).digest('hex')
  return { traceId: nonZero(digest.slice(0, 32)), spanId: nonZero(digest.slice(32, 48)), traceFlags: TraceFlags.SAMPLED, isRemote: true }
}

function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex
}

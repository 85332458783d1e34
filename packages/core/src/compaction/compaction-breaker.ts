// The compaction circuit breaker's settings from the runtime policy, and the `compaction.failed` event of a failure.
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { Redactor } from '../observability/redactor.js'
import type { AgentEvent } from '../spec/events.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { CompactionServiceOptions } from './compaction-service.js'

/** `policy.compaction.failureThreshold` / `cooldownMs`, as the CompactionService's options (absent: its defaults). */
export function compactionBreaker(policy: RuntimePolicy): CompactionServiceOptions {
  const { failureThreshold, cooldownMs } = policy.compaction
  return { ...(failureThreshold !== undefined ? { failureThreshold } : {}), ...(cooldownMs !== undefined ? { cooldownMs } : {}) }
}

/** The `compaction.failed` event (not yet stamped) for a strategy's failure, its message redacted. */
export function compactionFailed(step: number, strategy: string, error: unknown, circuitOpen: boolean, redactor: Redactor | false | undefined): AgentEvent {
  const raw = SpindleError.isInstance(error)
    ? { code: error.code, message: error.message }
    : { code: 'compaction', message: error instanceof Error ? error.message : String(error) }
  const redacted = redactor ? redactor.redactError(raw) : raw
  return { type: 'compaction.failed', step, strategy, error: redacted, circuitOpen, runId: '', sessionId: '', seq: 0, timestamp: 0 }
}

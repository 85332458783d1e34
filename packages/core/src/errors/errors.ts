// The concrete error classes of Spindle; each keeps a stable code (see SpindleError).
import { SpindleError, type SpindleErrorOptions } from './spindle-error.js'

/** A request was refused before anything was written (validation, size, hooks). */
export class AdmissionError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('admission_rejected', message, options)
    this.name = 'AdmissionError'
  }
}

/** The session already has an active run and the gate is configured to reject (or its queue is full / timed out). */
export class SessionBusyError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('session_busy', message, { isRetryable: true, ...options })
    this.name = 'SessionBusyError'
  }
}

/** A runtime policy forbids an action. */
export class PolicyViolationError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('policy_violation', message, options)
    this.name = 'PolicyViolationError'
  }
}

/** Something looked up by name or id does not exist. */
export class NotFoundError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('not_found', message, options)
    this.name = 'NotFoundError'
  }
}

/** A name was registered twice. */
export class DuplicateError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('duplicate', message, options)
    this.name = 'DuplicateError'
  }
}

/** Options or wiring are invalid. */
export class ConfigurationError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('configuration', message, options)
    this.name = 'ConfigurationError'
  }
}

export interface ProviderErrorOptions extends SpindleErrorOptions {
  status?: number
  retryAfterMs?: number
  provider?: string
  /**
   * Requests the provider made for this call, its own retries included. Set by a provider that retries by itself
   * (the OpenAI and Anthropic ones do): the runtime then never retries the call again, so a failing call costs
   * `1 + maxRetries` requests of the provider, not that times `policy.modelRetry`.
   */
  attempts?: number
}

/** A model provider failed (HTTP status, in-band stream error, cut stream). */
export class ProviderError extends SpindleError {
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly provider: string | undefined
  /** Requests the provider made for the call (its own retries included), when it retries by itself. */
  readonly attempts: number | undefined
  constructor(message: string, options: ProviderErrorOptions = {}, code: string = 'provider') {
    const status = options.status
    const retryable =
      options.isRetryable ??
      (status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500))
    super(code, message, { ...options, isRetryable: retryable })
    this.name = 'ProviderError'
    this.status = status
    this.retryAfterMs = options.retryAfterMs
    this.provider = options.provider
    this.attempts = options.attempts
  }
}

/** The request did not fit the model's context window; the runtime compacts and retries once. */
export class ContextOverflowError extends ProviderError {
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, { ...options, isRetryable: false }, 'context_overflow')
    this.name = 'ContextOverflowError'
  }
}

/** A stream ended before its finish part: never a complete answer. */
export class StreamInterruptedError extends ProviderError {
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, { isRetryable: true, ...options }, 'stream_interrupted')
    this.name = 'StreamInterruptedError'
  }
}

/** A store failed; plugins translate native driver errors into this. */
export class StoreError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('store', message, options)
    this.name = 'StoreError'
  }
}

/** A write carried a fencing token older than the session's current one: the writer lost its lease. */
export class StaleFenceError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('stale_fence', message, options)
    this.name = 'StaleFenceError'
  }
}

/** A conditional write found the log elsewhere than expected (`expectedLastSeq`): another writer appended first. */
export class SequenceConflictError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('sequence_conflict', message, options)
    this.name = 'SequenceConflictError'
  }
}

/** A tool failed while executing. */
export class ToolExecutionError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool', message, options)
    this.name = 'ToolExecutionError'
  }
}

/** The model sent arguments that do not match the tool's schema (returned to the model, never thrown out of a run). */
export class ToolArgumentsError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool_arguments', message, options)
    this.name = 'ToolArgumentsError'
  }
}

/** A tool exceeded its time limit. */
export class ToolTimeoutError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool_timeout', message, options)
    this.name = 'ToolTimeoutError'
  }
}

/** An operation was aborted through its AbortSignal or `runtime.cancel`. */
export class AbortedError extends SpindleError {
  constructor(message = 'The operation was aborted', options?: SpindleErrorOptions) {
    super('aborted', message, options)
    this.name = 'AbortedError'
  }
}

/** A deadline passed. */
export class TimeoutError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('timeout', message, options)
    this.name = 'TimeoutError'
  }
}

/** Misuse of a RuntimeStore (missing key, no active runtime, unknown resource). */
export class RuntimeStoreError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('runtime_store', message, options)
    this.name = 'RuntimeStoreError'
  }
}

/** A value was read after its cleanup ran. */
export class DisposedValueError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('disposed', message, options)
    this.name = 'DisposedValueError'
  }
}

/** A conformance rule was broken by a plugin under test. */
export class ConformanceError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('conformance', message, options)
    this.name = 'ConformanceError'
  }
}

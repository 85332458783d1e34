// The concrete error classes of Spindle; each keeps a stable code (see SpindleError) and its own `Symbol.for` marker,
// so `X.isInstance(error)` holds for an error thrown by another copy of @spindle/core, where `instanceof` does not.
import { hasErrorMarker, SpindleError, type SpindleErrorOptions } from './spindle-error.js'

const admissionMarker = Symbol.for('spindle.error.admission_rejected')

/** A request was refused before anything was written (validation, size, hooks). */
export class AdmissionError extends SpindleError {
  readonly [admissionMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('admission_rejected', message, options)
    this.name = 'AdmissionError'
  }

  /** True for an AdmissionError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is AdmissionError {
    return hasErrorMarker(value, admissionMarker)
  }
}

const sessionBusyMarker = Symbol.for('spindle.error.session_busy')

/** The session already has an active run and the gate is configured to reject (or its queue is full / timed out). */
export class SessionBusyError extends SpindleError {
  readonly [sessionBusyMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('session_busy', message, { isRetryable: true, ...options })
    this.name = 'SessionBusyError'
  }

  /** True for a SessionBusyError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is SessionBusyError {
    return hasErrorMarker(value, sessionBusyMarker)
  }
}

const policyViolationMarker = Symbol.for('spindle.error.policy_violation')

/** A runtime policy forbids an action. */
export class PolicyViolationError extends SpindleError {
  readonly [policyViolationMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('policy_violation', message, options)
    this.name = 'PolicyViolationError'
  }

  /** True for a PolicyViolationError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is PolicyViolationError {
    return hasErrorMarker(value, policyViolationMarker)
  }
}

const notFoundMarker = Symbol.for('spindle.error.not_found')

/** Something looked up by name or id does not exist. */
export class NotFoundError extends SpindleError {
  readonly [notFoundMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('not_found', message, options)
    this.name = 'NotFoundError'
  }

  /** True for a NotFoundError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is NotFoundError {
    return hasErrorMarker(value, notFoundMarker)
  }
}

const duplicateMarker = Symbol.for('spindle.error.duplicate')

/** A name was registered twice. */
export class DuplicateError extends SpindleError {
  readonly [duplicateMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('duplicate', message, options)
    this.name = 'DuplicateError'
  }

  /** True for a DuplicateError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is DuplicateError {
    return hasErrorMarker(value, duplicateMarker)
  }
}

const configurationMarker = Symbol.for('spindle.error.configuration')

/** Options or wiring are invalid. */
export class ConfigurationError extends SpindleError {
  readonly [configurationMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('configuration', message, options)
    this.name = 'ConfigurationError'
  }

  /** True for a ConfigurationError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ConfigurationError {
    return hasErrorMarker(value, configurationMarker)
  }
}

/** A ProviderError's options: the HTTP status, the server's retry hint, the provider's name and its own attempts. */
export interface ProviderErrorOptions extends SpindleErrorOptions {
  /** The HTTP status; 408, 409, 429 and 5xx make the error retryable unless `isRetryable` says otherwise. */
  status?: number
  /** The server's `retry-after` hint, in milliseconds. */
  retryAfterMs?: number
  /** The provider's name (`openai`, `anthropic`). */
  provider?: string
  /**
   * Requests the provider made for this call, its own retries included. Set by a provider that retries by itself
   * (the OpenAI and Anthropic ones do): the runtime then never retries the call again, so a failing call costs
   * `1 + maxRetries` requests of the provider, not that times `policy.modelRetry`.
   */
  attempts?: number
}

const providerMarker = Symbol.for('spindle.error.provider')

/** A model provider failed (HTTP status, in-band stream error, cut stream). */
export class ProviderError extends SpindleError {
  readonly [providerMarker] = true
  readonly status: number | undefined
  readonly retryAfterMs: number | undefined
  readonly provider: string | undefined
  /** Requests the provider made for the call (its own retries included), when it retries by itself. */
  readonly attempts: number | undefined
  constructor(message: string, options: ProviderErrorOptions = {}, code: string = 'provider') {
    const status = options.status
    const retryable = options.isRetryable ?? (status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500))
    super(code, message, { ...options, isRetryable: retryable })
    this.name = 'ProviderError'
    this.status = status
    this.retryAfterMs = options.retryAfterMs
    this.provider = options.provider
    this.attempts = options.attempts
  }

  /** True for a ProviderError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ProviderError {
    return hasErrorMarker(value, providerMarker)
  }
}

const contextOverflowMarker = Symbol.for('spindle.error.context_overflow')

/** The request did not fit the model's context window; the runtime compacts and retries once. */
export class ContextOverflowError extends ProviderError {
  readonly [contextOverflowMarker] = true
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, { ...options, isRetryable: false }, 'context_overflow')
    this.name = 'ContextOverflowError'
  }

  /** True for a ContextOverflowError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ContextOverflowError {
    return hasErrorMarker(value, contextOverflowMarker)
  }
}

const streamInterruptedMarker = Symbol.for('spindle.error.stream_interrupted')

/** A stream ended before its finish part: never a complete answer. */
export class StreamInterruptedError extends ProviderError {
  readonly [streamInterruptedMarker] = true
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, { isRetryable: true, ...options }, 'stream_interrupted')
    this.name = 'StreamInterruptedError'
  }

  /** True for a StreamInterruptedError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is StreamInterruptedError {
    return hasErrorMarker(value, streamInterruptedMarker)
  }
}

const storeMarker = Symbol.for('spindle.error.store')

/** A store failed; plugins translate native driver errors into this. */
export class StoreError extends SpindleError {
  readonly [storeMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('store', message, options)
    this.name = 'StoreError'
  }

  /** True for a StoreError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is StoreError {
    return hasErrorMarker(value, storeMarker)
  }
}

const staleFenceMarker = Symbol.for('spindle.error.stale_fence')

/** A write carried a fencing token older than the session's current one: the writer lost its lease. */
export class StaleFenceError extends SpindleError {
  readonly [staleFenceMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('stale_fence', message, options)
    this.name = 'StaleFenceError'
  }

  /** True for a StaleFenceError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is StaleFenceError {
    return hasErrorMarker(value, staleFenceMarker)
  }
}

const sequenceConflictMarker = Symbol.for('spindle.error.sequence_conflict')

/** A conditional write found the log elsewhere than expected (`expectedLastSeq`): another writer appended first. */
export class SequenceConflictError extends SpindleError {
  readonly [sequenceConflictMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('sequence_conflict', message, options)
    this.name = 'SequenceConflictError'
  }

  /** True for a SequenceConflictError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is SequenceConflictError {
    return hasErrorMarker(value, sequenceConflictMarker)
  }
}

const toolExecutionMarker = Symbol.for('spindle.error.tool')

/** A tool failed while executing. */
export class ToolExecutionError extends SpindleError {
  readonly [toolExecutionMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool', message, options)
    this.name = 'ToolExecutionError'
  }

  /** True for a ToolExecutionError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ToolExecutionError {
    return hasErrorMarker(value, toolExecutionMarker)
  }
}

const toolArgumentsMarker = Symbol.for('spindle.error.tool_arguments')

/** The model sent arguments that do not match the tool's schema (returned to the model, never thrown out of a run). */
export class ToolArgumentsError extends SpindleError {
  readonly [toolArgumentsMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool_arguments', message, options)
    this.name = 'ToolArgumentsError'
  }

  /** True for a ToolArgumentsError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ToolArgumentsError {
    return hasErrorMarker(value, toolArgumentsMarker)
  }
}

const toolTimeoutMarker = Symbol.for('spindle.error.tool_timeout')

/** A tool exceeded its time limit. */
export class ToolTimeoutError extends SpindleError {
  readonly [toolTimeoutMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('tool_timeout', message, options)
    this.name = 'ToolTimeoutError'
  }

  /** True for a ToolTimeoutError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ToolTimeoutError {
    return hasErrorMarker(value, toolTimeoutMarker)
  }
}

const abortedMarker = Symbol.for('spindle.error.aborted')

/** An operation was aborted through its AbortSignal or `runtime.cancel`. */
export class AbortedError extends SpindleError {
  readonly [abortedMarker] = true
  constructor(message = 'The operation was aborted', options?: SpindleErrorOptions) {
    super('aborted', message, options)
    this.name = 'AbortedError'
  }

  /** True for an AbortedError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is AbortedError {
    return hasErrorMarker(value, abortedMarker)
  }
}

const timeoutMarker = Symbol.for('spindle.error.timeout')

/** A deadline passed. */
export class TimeoutError extends SpindleError {
  readonly [timeoutMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('timeout', message, options)
    this.name = 'TimeoutError'
  }

  /** True for a TimeoutError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is TimeoutError {
    return hasErrorMarker(value, timeoutMarker)
  }
}

const runtimeStoreMarker = Symbol.for('spindle.error.runtime_store')

/** Misuse of a RuntimeStore (missing key, no active runtime, unknown resource). */
export class RuntimeStoreError extends SpindleError {
  readonly [runtimeStoreMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('runtime_store', message, options)
    this.name = 'RuntimeStoreError'
  }

  /** True for a RuntimeStoreError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is RuntimeStoreError {
    return hasErrorMarker(value, runtimeStoreMarker)
  }
}

const disposedValueMarker = Symbol.for('spindle.error.disposed')

/** A value was read after its cleanup ran. */
export class DisposedValueError extends SpindleError {
  readonly [disposedValueMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('disposed', message, options)
    this.name = 'DisposedValueError'
  }

  /** True for a DisposedValueError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is DisposedValueError {
    return hasErrorMarker(value, disposedValueMarker)
  }
}

const conformanceMarker = Symbol.for('spindle.error.conformance')

/** A conformance rule was broken by a plugin under test. */
export class ConformanceError extends SpindleError {
  readonly [conformanceMarker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('conformance', message, options)
    this.name = 'ConformanceError'
  }

  /** True for a ConformanceError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ConformanceError {
    return hasErrorMarker(value, conformanceMarker)
  }
}

// The one error hierarchy of Spindle: a stable `code`, the `cause` always kept,
// `isRetryable` where it applies, and an `isInstance` that works across package copies.

const marker = Symbol.for('spindle.error')

/** The stable codes of core's errors; plugins add their own (any string). */
export type SpindleErrorCode =
  | 'admission_rejected'
  | 'session_busy'
  | 'policy_violation'
  | 'not_found'
  | 'duplicate'
  | 'configuration'
  | 'provider'
  | 'context_overflow'
  | 'store'
  | 'stale_fence'
  | 'tool'
  | 'tool_arguments'
  | 'tool_timeout'
  | 'aborted'
  | 'timeout'
  | 'runtime_store'
  | 'disposed'
  | 'script_exhausted'
  | 'stream_interrupted'
  | 'conformance'
  | (string & {})

/** What every Spindle error takes besides its message: the cause, whether a retry can help, and details. */
export interface SpindleErrorOptions {
  cause?: unknown
  isRetryable?: boolean
  details?: Record<string, unknown>
}

/**
 * Base class of every error Spindle throws.
 *
 * @example
 * if (SpindleError.isInstance(error) && error.code === 'session_busy') retryLater()
 */
export class SpindleError extends Error {
  readonly [marker] = true
  readonly code: SpindleErrorCode
  readonly isRetryable: boolean
  readonly details: Record<string, unknown> | undefined

  constructor(code: SpindleErrorCode, message: string, options: SpindleErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SpindleError'
    this.code = code
    this.isRetryable = options.isRetryable ?? false
    this.details = options.details
  }

  /** True for a SpindleError (any subclass) from any copy of `@spindle/core`. */
  static isInstance(value: unknown): value is SpindleError {
    return hasErrorMarker(value, marker)
  }

  toJSON(): { name: string; code: string; message: string; isRetryable: boolean; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, isRetryable: this.isRetryable, details: this.details }
  }
}

/**
 * True when `value` is an object whose `marker` property is `true`. Every Spindle error class sets its own
 * `Symbol.for('spindle.error.<code>')` marker, so the check holds across two installed copies of a package, where
 * `instanceof` fails. Plugins that define error classes use it for their own `isInstance`.
 *
 * @example
 * const marker = Symbol.for('spindle.error.web_tool')
 * class WebToolError extends SpindleError {
 *   readonly [marker] = true
 *   static override isInstance(value: unknown): value is WebToolError { return hasErrorMarker(value, marker) }
 * }
 */
export function hasErrorMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true
}

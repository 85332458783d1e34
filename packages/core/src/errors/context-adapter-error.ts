// ContextAdapterError: a context adapter threw while a run built its request; the message names the adapter.
import { hasErrorMarker, SpindleError, type SpindleErrorOptions } from './spindle-error.js'

const marker = Symbol.for('spindle.error.context_adapter')

/**
 * A context adapter's `apply` threw (or rejected) while a run built a model request. Code `context_adapter`;
 * `details.adapter` is the adapter's name, and `cause` what it threw. The run fails with this code.
 *
 * @example
 * if (output.error?.code === 'context_adapter') console.error(output.error.message) // names the adapter
 */
export class ContextAdapterError extends SpindleError {
  readonly [marker] = true
  /** The name of the adapter that threw. */
  readonly adapter: string
  constructor(adapter: string, cause: unknown, options: SpindleErrorOptions = {}) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(
      'context_adapter',
      `[spindle/core] context adapter "${adapter}" failed while building the model request: ${reason}. Fix or remove the adapter (extensions.context).`,
      {
        cause,
        ...options,
        details: { adapter, ...options.details },
      },
    )
    this.name = 'ContextAdapterError'
    this.adapter = adapter
  }

  /** True for a ContextAdapterError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ContextAdapterError {
    return hasErrorMarker(value, marker)
  }
}

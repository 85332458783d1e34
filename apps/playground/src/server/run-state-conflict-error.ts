// A well-formed request that the run's current state does not allow (approve a call already decided, cancel a
// finished run, resume a completed one…): HTTP 409 Conflict, where a malformed request is 400.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'
import { hasErrorMarker } from '@spindle/core/plugin-kit'

const marker = Symbol.for('spindle.error.playground_run_state_conflict')

/** The action conflicts with the run's current state; read the run again, then decide what to do. */
export class RunStateConflictError extends SpindleError {
  readonly [marker] = true
  constructor(message: string, options?: SpindleErrorOptions) {
    super('conflict', message, options)
    this.name = 'RunStateConflictError'
  }

  /** True for a RunStateConflictError from any copy of this package. */
  static override isInstance(value: unknown): value is RunStateConflictError {
    return hasErrorMarker(value, marker)
  }
}

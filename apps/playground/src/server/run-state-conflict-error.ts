// A well-formed request that the run's current state does not allow (approve a call already decided, cancel a
// finished run, resume a completed one…): HTTP 409 Conflict, where a malformed request is 400.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'

/** The action conflicts with the run's current state; read the run again, then decide what to do. */
export class RunStateConflictError extends SpindleError {
  constructor(message: string, options?: SpindleErrorOptions) {
    super('conflict', message, options)
    this.name = 'RunStateConflictError'
  }
}

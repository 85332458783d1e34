// The one error class of @spindle/tools-code: a stable code per failure, a message the model can act on.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'
import { hasErrorMarker } from '@spindle/core/plugin-kit'

const marker = Symbol.for('spindle.error.tools_code')

/** Why a code run failed (`code_timeout`, `code_memory_limit`, `code_stack_overflow`…), as `CodeToolError.code`. */
export type CodeToolErrorCode =
  | 'code_timeout'
  | 'code_memory_limit'
  | 'code_stack_overflow'
  | 'code_error'
  | 'code_output_limit'
  | 'code_not_serializable'
  | 'code_aborted'
  | 'code_sandbox_failed'
  | 'code_host_call_limit'

/** Thrown by the code tool; the kernel returns its message to the model as a tool error. */
export class CodeToolError extends SpindleError {
  readonly [marker] = true
  constructor(code: CodeToolErrorCode, message: string, options?: SpindleErrorOptions) {
    super(code, `[spindle/tools-code] ${message}`, options)
    this.name = 'CodeToolError'
  }

  /** True for a CodeToolError from any copy of this package. */
  static override isInstance(value: unknown): value is CodeToolError {
    return hasErrorMarker(value, marker)
  }
}

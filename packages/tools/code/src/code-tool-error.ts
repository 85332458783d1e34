// The one error class of @spindle/tools-code: a stable code per failure, a message the model can act on.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'

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
  constructor(code: CodeToolErrorCode, message: string, options?: SpindleErrorOptions) {
    super(code, `[spindle/tools-code] ${message}`, options)
    this.name = 'CodeToolError'
  }
}

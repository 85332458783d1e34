// The one error class of @spindle/tools-mcp: a stable code per failure, a message the model can act on.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'
import { hasErrorMarker } from '@spindle/core/plugin-kit'

const marker = Symbol.for('spindle.error.tools_mcp')

/** Why an MCP call failed (`mcp_connect_failed`, `mcp_unavailable`, `mcp_connection_lost`…), as `McpToolError.code`. */
export type McpToolErrorCode =
  | 'mcp_connect_failed'
  | 'mcp_unavailable'
  | 'mcp_connection_lost'
  | 'mcp_tool_error'
  | 'mcp_protocol_error'
  | 'mcp_invalid_arguments'
  | 'mcp_timeout'
  | 'mcp_aborted'
  | 'mcp_closed'

/** Thrown by MCP tools; the kernel returns its message to the model as a tool error. */
export class McpToolError extends SpindleError {
  readonly [marker] = true
  constructor(code: McpToolErrorCode, message: string, options?: SpindleErrorOptions) {
    super(code, `[spindle/tools-mcp] ${message}`, options)
    this.name = 'McpToolError'
  }

  /** True for a McpToolError from any copy of this package. */
  static override isInstance(value: unknown): value is McpToolError {
    return hasErrorMarker(value, marker)
  }
}

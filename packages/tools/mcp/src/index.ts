// Public entry of @spindle/tools-mcp.
export { mcpTools, prefixedToolName, type McpToolInfo, type McpToolProgress, type McpToolSet, type McpToolsOptions } from './mcp-tools.js'
export type { McpProgressUpdate } from './mcp-task-call.js'
export type { McpTransportOptions } from './mcp-connection.js'
export { toCallResult, normalizeContent, type McpCallResult, type McpContent } from './mcp-content.js'
export { checkJsonSchema } from './json-schema-check.js'
export { McpToolError, type McpToolErrorCode } from './mcp-tool-error.js'

// Maps an MCP CallToolResult to a JSON tool result (or a tool error when the server says isError).
import type { JsonObject, JsonValue } from '@spindle/core'
import { McpToolError } from './mcp-tool-error.js'

/** One content item of an MCP tool result: text, an image, audio or an embedded resource. */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; data: string }
  | { type: 'audio'; mimeType: string; data: string }
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; blob?: string }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: 'unknown'; value: string }

/** An MCP tool's result as the model receives it: its content items and, when the server sent one, its structured content. */
export interface McpCallResult {
  content: McpContent[]
  structuredContent?: JsonObject
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function describeUnknown(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 1000)
  } catch {
    return String(value).slice(0, 1000)
  }
}

/**
 * One item of an MCP tool result's `content`, checked and normalized: text, image, audio, an embedded resource or a
 * resource link. Anything else (or a malformed item) becomes `{ type: 'unknown', value }` with its JSON, cut to 1,000
 * characters; it never throws.
 */
export function normalizeContent(item: unknown): McpContent {
  const part = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>
  switch (part.type) {
    case 'text':
      if (str(part.text) !== undefined) return { type: 'text', text: part.text as string }
      break
    case 'image':
    case 'audio':
      if (str(part.data) !== undefined) return { type: part.type, mimeType: str(part.mimeType) ?? 'application/octet-stream', data: part.data as string }
      break
    case 'resource': {
      const resource = (typeof part.resource === 'object' && part.resource !== null ? part.resource : {}) as Record<string, unknown>
      if (str(resource.uri) !== undefined) {
        const mapped: McpContent = { type: 'resource', uri: resource.uri as string }
        if (str(resource.mimeType)) mapped.mimeType = resource.mimeType as string
        if (str(resource.text) !== undefined) mapped.text = resource.text as string
        if (str(resource.blob) !== undefined) mapped.blob = resource.blob as string
        return mapped
      }
      break
    }
    case 'resource_link':
      if (str(part.uri) !== undefined) {
        const link: McpContent = { type: 'resource_link', uri: part.uri as string }
        if (str(part.name)) link.name = part.name as string
        if (str(part.mimeType)) link.mimeType = part.mimeType as string
        if (str(part.description)) link.description = part.description as string
        return link
      }
      break
  }
  return { type: 'unknown', value: describeUnknown(item) }
}

/** The JSON result of a successful call; throws McpToolError for `isError` results or a result that is not an object. */
export function toCallResult(raw: unknown, label: string): McpCallResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new McpToolError('mcp_protocol_error', `${label} returned a malformed result (${describeUnknown(raw).slice(0, 200)})`)
  }
  const result = raw as Record<string, unknown>
  const content = Array.isArray(result.content) ? result.content.map(normalizeContent) : []
  if (result.isError === true) {
    const text = content
      .map((part) => (part.type === 'text' ? part.text : part.type === 'unknown' ? part.value : `[${part.type}]`))
      .join('\n')
      .slice(0, 4000)
    throw new McpToolError('mcp_tool_error', `${label} reported an error: ${text || '(no message)'}`, {
      details: { content: content as unknown as JsonValue[] },
    })
  }
  const mapped: McpCallResult = { content }
  if (typeof result.structuredContent === 'object' && result.structuredContent !== null && !Array.isArray(result.structuredContent)) {
    mapped.structuredContent = JSON.parse(JSON.stringify(result.structuredContent)) as JsonObject
  }
  return mapped
}

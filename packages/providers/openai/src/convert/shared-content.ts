// Conversions both OpenAI APIs share: tool results as text, files as data URLs, strict JSON schemas.
import { ConfigurationError, type FilePart, type JsonSchema, type JsonValue } from '@spindle/core'
import { wellFormed } from '@spindle/core/plugin-kit'

/**
 * A tool result as the text the model reads (strings as is, everything else as JSON). Strings inside are made well
 * formed first: JSON.stringify would write a lone surrogate as a `\ud800` escape the API would then parse.
 */
export function toolResultText(result: JsonValue, isError: boolean | undefined): string {
  const text = typeof result === 'string' ? result : JSON.stringify(wellFormed(result))
  return isError ? `Error: ${text}` : text
}

/** Tool-call arguments as the JSON text the API expects (strings inside well formed, as for results). */
export function toolArgumentsText(args: JsonValue): string {
  return typeof args === 'string' ? args : JSON.stringify(wellFormed(args ?? {}))
}

/** A URL the API can fetch or a `data:` URL; artifact references must be resolved before the call. */
export function fileUrl(part: FilePart, provider: string): string {
  if (part.data.startsWith('artifact:')) {
    throw new ConfigurationError(
      `[spindle/${provider}] file part "${part.name ?? part.data}" is an artifact reference; resolve it to base64 data or a URL before calling the model`,
    )
  }
  if (/^(https?:|data:)/.test(part.data)) return part.data
  return `data:${part.mediaType};base64,${part.data}`
}

/**
 * True when the schema meets OpenAI's strict mode (every object closed with `additionalProperties: false`
 * and every property required), so `strict: true` can be sent without a 400.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.every(visit)
    if (typeof node !== 'object' || node === null) return true
    const record = node as Record<string, unknown>
    if (record.type === 'object' || record.properties) {
      if (record.additionalProperties !== false) return false
      const properties = Object.keys((record.properties as Record<string, unknown>) ?? {})
      const required = new Set((record.required as string[]) ?? [])
      if (!properties.every((name) => required.has(name))) return false
    }
    return Object.entries(record).every(([key, value]) => key === 'required' || key === 'enum' || key === 'const' || visit(value))
  }
  return visit(schema)
}

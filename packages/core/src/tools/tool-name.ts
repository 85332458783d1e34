// Tool names sent to providers must match what every provider accepts.
import { ConfigurationError } from '../errors/errors.js'

/** The names providers accept for tools: letters, digits, `_` and `-`, 1 to 64 characters. */
export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/

/** Throws a `ConfigurationError` when a tool name does not match `toolNamePattern`. */
export function assertToolName(name: string): void {
  if (!toolNamePattern.test(name)) {
    throw new ConfigurationError(
      `[spindle/core] tool name "${name}" is not accepted by providers (${toolNamePattern.source}); pass the tool under another key, e.g. tools: { ${sanitizeToolName(name)}: tool }`,
    )
  }
}

/** Turns an id such as `excel.preview` into a provider-safe name (`excel_preview`). */
export function sanitizeToolName(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)
  return cleaned.length ? cleaned : 'tool'
}

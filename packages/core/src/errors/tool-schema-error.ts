// The error for a tool input schema Spindle cannot use (a zod 3 schema, or not a schema at all).
import { ConfigurationError } from './errors.js'
import { hasErrorMarker, type SpindleErrorOptions } from './spindle-error.js'

const marker = Symbol.for('spindle.error.tool_schema')

/**
 * A tool's `inputSchema` is neither a zod 4 schema nor a `jsonSchema()` input — typically a schema built with zod 3,
 * which Spindle cannot read. A {@link ConfigurationError} (code `configuration`); the message names the fix.
 *
 * @example
 * try { defineTool({ name: 'add', description: '', inputSchema, execute }) }
 * catch (error) { if (ToolSchemaError.isInstance(error)) console.error(error.message) }
 */
export class ToolSchemaError extends ConfigurationError {
  readonly [marker] = true
  /** The name (or id) of the tool whose schema was refused. */
  readonly toolName: string
  /** What was given: `zod3` for a zod 3 schema, `zod-other` for another zod major, `other` for anything else. */
  readonly found: 'zod3' | 'zod-other' | 'other'

  constructor(toolName: string, found: ToolSchemaError['found'], message: string, options?: SpindleErrorOptions) {
    super(message, { ...options, details: { tool: toolName, found, ...options?.details } })
    this.name = 'ToolSchemaError'
    this.toolName = toolName
    this.found = found
  }

  /** True for a ToolSchemaError from any copy of `@spindle/core`. */
  static override isInstance(value: unknown): value is ToolSchemaError {
    return hasErrorMarker(value, marker)
  }
}

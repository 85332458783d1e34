// defineTool: a typed tool from a zod input schema (or a raw JSON Schema).
import { z } from 'zod'
import { ConfigurationError } from '../errors/errors.js'
import type { JsonSchema } from '../spec/json.js'
import type { JsonSchemaInput, Tool, ToolEffect, ToolExecutionContext, ToolInputSchema } from './tool.js'
import { assertToolInputSchema } from './assert-tool-input-schema.js'
import { sanitizeToolName, toolNamePattern } from './tool-name.js'

/** What `defineTool` takes: name, description, input schema, `execute`, and the safety fields (`idempotent`, `effect`, `needsApproval`, `timeoutMs`, `maxOutputBytes`, `reconcile`). */
export interface ToolDefinition<Input, Output> {
  /** The name the model sees; defaults to a provider-safe form of `id`. */
  name?: string
  /** Identity in events and the journal; defaults to `name`. */
  id?: string
  description: string
  inputSchema: ToolInputSchema<Input>
  outputSchema?: z.ZodType<Output>
  execute(input: Input, context: ToolExecutionContext): Promise<Output> | Output
  idempotent?: boolean
  effect?: ToolEffect
  needsApproval?: Tool<Input, Output>['needsApproval']
  timeoutMs?: number
  maxOutputBytes?: number
  reconcile?: Tool<Input, Output>['reconcile']
}

/**
 * @example
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 *   idempotent: true,
 *   effect: 'read',
 * })
 */
export function defineTool<Input, Output>(definition: ToolDefinition<Input, Output>): Tool<Input, Output> {
  const id = definition.id ?? definition.name
  if (!id) throw new ConfigurationError('[spindle/core] defineTool needs a name or an id')
  const name = definition.name ?? sanitizeToolName(id)
  if (!toolNamePattern.test(name)) {
    throw new ConfigurationError(`[spindle/core] tool name "${name}" must match ${toolNamePattern.source}`)
  }
  if (typeof definition.execute !== 'function') throw new ConfigurationError(`[spindle/core] tool "${name}" needs an execute function`)
  if (!definition.inputSchema) throw new ConfigurationError(`[spindle/core] tool "${name}" needs an inputSchema`)
  assertToolInputSchema(definition.inputSchema, name)
  return Object.freeze({
    name,
    id,
    description: definition.description,
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema,
    execute: definition.execute,
    idempotent: definition.idempotent ?? false,
    effect: definition.effect ?? (definition.idempotent ? 'read' : 'external'),
    needsApproval: definition.needsApproval,
    timeoutMs: definition.timeoutMs,
    maxOutputBytes: definition.maxOutputBytes,
    reconcile: definition.reconcile,
  })
}

/** Wraps a raw JSON Schema (e.g. an MCP tool's) as a tool input schema. */
export function jsonSchema<Input = unknown>(schema: JsonSchema, validate?: JsonSchemaInput<Input>['validate']): JsonSchemaInput<Input> {
  return { kind: 'json-schema', jsonSchema: schema, validate }
}

function isJsonSchemaInput(schema: unknown): schema is JsonSchemaInput {
  return typeof schema === 'object' && schema !== null && (schema as JsonSchemaInput).kind === 'json-schema'
}

const jsonSchemaCache = new WeakMap<object, JsonSchema>()

/** The JSON Schema sent to providers, from zod's own converter (cached per schema). */
export function toolInputJsonSchema(tool: Pick<Tool, 'inputSchema'>): JsonSchema {
  const schema = tool.inputSchema
  if (isJsonSchemaInput(schema)) return schema.jsonSchema
  const cached = jsonSchemaCache.get(schema)
  if (cached) return cached
  const converted = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  delete converted.$schema
  jsonSchemaCache.set(schema, converted)
  return converted
}

/** Validates model-sent arguments against the tool's input schema. */
export function parseToolInput<Input>(
  tool: Pick<Tool<Input>, 'inputSchema'>,
  args: unknown,
): { success: true; value: Input } | { success: false; error: string } {
  const schema = tool.inputSchema
  if (isJsonSchemaInput(schema)) {
    if (!schema.validate) return { success: true, value: args as Input }
    return schema.validate(args) as { success: true; value: Input } | { success: false; error: string }
  }
  const result = (schema as z.ZodType<Input>).safeParse(args)
  if (result.success) return { success: true, value: result.data }
  return { success: false, error: z.prettifyError(result.error) }
}

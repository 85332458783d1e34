// fromAiSdkTool: an AI SDK `tool({...})` (zod, `jsonSchema()`, lazy or Standard schema) as a Spindle tool, with its
// execute (a streaming execute gives its last value) and its approval flag.
import { ConfigurationError, defineTool, jsonSchema, sanitizeToolName, type JsonSchema, type Tool, type ToolEffect, type ToolInputSchema } from '@spindle/core'

/** The parts of an AI SDK tool the adapter reads (`Tool` of `ai@6`/`@ai-sdk/provider-utils`). */
export interface AiSdkTool<Input = any, Output = any> {
  description?: string
  title?: string
  inputSchema: unknown
  needsApproval?:
    boolean | ((input: Input, options: { toolCallId: string; messages: never[]; experimental_context?: unknown }) => boolean | PromiseLike<boolean>)
  execute?: (
    input: Input,
    options: { toolCallId: string; messages: never[]; abortSignal?: AbortSignal; experimental_context?: unknown },
  ) => AsyncIterable<Output> | PromiseLike<Output> | Output
  type?: string
}

/** Options of `fromAiSdkTool()`: the name and id the tool gets in Spindle, and what the AI SDK tool does not say (idempotent, effect). */
export interface FromAiSdkToolOptions {
  /** The name the model sees (a `tools` object's key overrides it). Default: the tool's title, made provider-safe. */
  name?: string
  /** Identity in events and the journal (default: the name). */
  id?: string
  idempotent?: boolean
  effect?: ToolEffect
  timeoutMs?: number
}

/**
 * Makes an AI SDK tool usable in a Spindle agent. `execute` receives the run's RuntimeStore as `experimental_context`.
 *
 * @example
 * const weather = tool({ description: 'Weather', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => lookup(city) })
 * const agent = new Agent({ name: 'helper', model, tools: { weather: fromAiSdkTool(weather) } })
 */
export function fromAiSdkTool<Input = any, Output = any>(tool: AiSdkTool<Input, Output>, options: FromAiSdkToolOptions = {}): Tool<Input, Output> {
  const name = options.name ?? sanitizeToolName(tool.title ?? 'ai_sdk_tool')
  if (tool.type === 'provider' || tool.type === 'provider-defined') {
    throw new ConfigurationError(
      `[spindle/ai-sdk] fromAiSdkTool: "${name}" is a provider-executed tool; Spindle runs only function tools (pass it in the AI SDK model's provider options instead)`,
    )
  }
  const execute = tool.execute
  if (typeof execute !== 'function') {
    throw new ConfigurationError(`[spindle/ai-sdk] fromAiSdkTool: "${name}" has no execute function; a Spindle tool runs on the server, give it one`)
  }
  const approval = tool.needsApproval
  return defineTool<Input, Output>({
    name,
    ...(options.id !== undefined && { id: options.id }),
    description: tool.description ?? tool.title ?? name,
    inputSchema: toInputSchema<Input>(tool.inputSchema, name),
    ...(options.idempotent !== undefined && { idempotent: options.idempotent }),
    ...(options.effect !== undefined && { effect: options.effect }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(approval !== undefined && {
      needsApproval:
        typeof approval === 'function'
          ? async (input: Input, context) => Boolean(await approval(input, { toolCallId: context.callId, messages: [], experimental_context: context.runtime }))
          : approval,
    }),
    async execute(input, context) {
      const result = execute(input, { toolCallId: context.callId, messages: [], abortSignal: context.signal, experimental_context: context.runtime })
      if (isAsyncIterable<Output>(result)) {
        // A streaming execute yields preliminary results; the last one is the tool's result.
        let last: Output | undefined
        for await (const value of result) last = value
        return last as Output
      }
      return await result
    },
  })
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
}

type Validation<T> = { success: true; value: T } | { success: false; error: string }

/** A zod 4 schema passes through; an AI SDK `Schema` (or a lazy one) and a Standard schema become a JSON Schema input. */
function toInputSchema<Input>(schema: unknown, name: string): ToolInputSchema<Input> {
  let resolved = schema
  if (typeof resolved === 'function') resolved = (resolved as () => unknown)()
  if (typeof resolved !== 'object' || resolved === null) throw new ConfigurationError(`[spindle/ai-sdk] fromAiSdkTool: "${name}" has no inputSchema`)
  if ('_zod' in resolved) return resolved as ToolInputSchema<Input>
  const record = resolved as { jsonSchema?: unknown; validate?: (value: unknown) => unknown; '~standard'?: StandardProps }
  if (record.jsonSchema !== undefined) {
    if (typeof (record.jsonSchema as PromiseLike<unknown>).then === 'function') {
      throw new ConfigurationError(
        `[spindle/ai-sdk] fromAiSdkTool: "${name}" has an asynchronous JSON Schema; resolve it first and pass jsonSchema(await schema.jsonSchema)`,
      )
    }
    return jsonSchema<Input>(record.jsonSchema as JsonSchema, record.validate ? syncValidator<Input>(record.validate.bind(record)) : undefined)
  }
  const standard = record['~standard']
  if (standard?.jsonSchema?.input) {
    const converted = standard.jsonSchema.input({ target: 'draft-07' }) as JsonSchema
    return jsonSchema<Input>(
      converted,
      syncValidator<Input>((value) => {
        const result = standard.validate(value) as { value?: unknown; issues?: Array<{ message: string }> } | PromiseLike<unknown>
        if (typeof (result as PromiseLike<unknown>).then === 'function') return result
        const outcome = result as { value?: unknown; issues?: Array<{ message: string }> }
        return outcome.issues
          ? { success: false, error: new Error(outcome.issues.map((issue) => issue.message).join('; ')) }
          : { success: true, value: outcome.value }
      }),
    )
  }
  throw new ConfigurationError(
    `[spindle/ai-sdk] fromAiSdkTool: "${name}" has an inputSchema the adapter cannot read (use a zod 4 schema or jsonSchema() from ai)`,
  )
}

interface StandardProps {
  validate(value: unknown): unknown
  jsonSchema?: { input?(options: { target: string }): unknown }
}

/** An AI SDK validator as Spindle's synchronous one; an asynchronous result is accepted and left to execute. */
function syncValidator<Input>(validate: (value: unknown) => unknown): (value: unknown) => Validation<Input> {
  return (value) => {
    const result = validate(value) as { success: boolean; value?: unknown; error?: unknown } | PromiseLike<unknown>
    if (typeof (result as PromiseLike<unknown>).then === 'function') return { success: true, value: value as Input }
    const outcome = result as { success: boolean; value?: unknown; error?: unknown }
    if (outcome.success) return { success: true, value: outcome.value as Input }
    return { success: false, error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) }
  }
}

// Input admission: validate a request before anything is written; rejections are typed AdmissionErrors.
import { z } from 'zod'
import { AdmissionError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import { assertToolInputSchema } from '../tools/assert-tool-input-schema.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { ModelMessage } from '../spec/messages.js'
import { runRequestSchema, type RunRequest } from './run-request.js'

/** A hook that may reject a request (rate limits, moderation) by throwing; runs before anything is written. */
export type AdmissionHook = (request: RunRequest) => void | Promise<void>

/**
 * Checks a run request before anything is written and returns its input as messages: the request's shape
 * (`runRequestSchema`), a non-empty input, the policy's input size limit, then the admission hooks in order.
 * Rejects with an `AdmissionError` on an invalid or empty request, one over `policy.maxInputBytes`, or one a hook
 * rejected (the hook's error is its `cause`).
 */
export async function admitRequest(request: RunRequest, policy: RuntimePolicy, hooks: readonly AdmissionHook[]): Promise<ModelMessage[]> {
  return admitRequestNow(request, policy, hooks)
}

/**
 * `admitRequest()`, synchronous when there are no hooks (the checks are): the input messages, or a promise of them
 * once a hook runs. A rejection is thrown synchronously then.
 */
export function admitRequestNow(request: RunRequest, policy: RuntimePolicy, hooks: readonly AdmissionHook[]): ModelMessage[] | Promise<ModelMessage[]> {
  const parsed = runRequestSchema.safeParse(request)
  if (!parsed.success) throw new AdmissionError(`[spindle/core] invalid run request: ${z.prettifyError(parsed.error)}`, { cause: parsed.error })
  const messages: ModelMessage[] = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input
  if (isEmpty(messages)) throw new AdmissionError('[spindle/core] the input is empty: send some text or at least one non-empty message')
  let serialized: string
  try {
    serialized = JSON.stringify(messages)
  } catch (error) {
    throw new AdmissionError(`[spindle/core] the input is not JSON-serializable (${(error as Error).message}); send plain JSON messages`, { cause: error })
  }
  const bytes = Buffer.byteLength(serialized)
  if (bytes > policy.maxInputBytes) {
    throw new AdmissionError(`[spindle/core] the input is ${bytes} bytes, over policy.maxInputBytes (${policy.maxInputBytes}); send less or raise the limit`)
  }
  const unanswered = unansweredCall(messages)
  if (unanswered) {
    throw new AdmissionError(
      `[spindle/core] the input's assistant message asks for tool call "${unanswered}", which no later tool message of the input answers: the run never executes calls from its input, and the providers reject a call left without a result. Add its tool result, or leave the call out.`,
    )
  }
  const orphan = orphanResult(messages)
  if (orphan) {
    throw new AdmissionError(
      `[spindle/core] the input's tool message answers tool call "${orphan}", which no earlier assistant message of the input asks for: the providers reject a tool result without its call. Send the assistant message with the call before its result, or leave the result out.`,
    )
  }
  const notATool = invalidTool(request.agent.tools)
  if (notATool) throw new AdmissionError(`[spindle/core] invalid run request: ${notATool}`)
  const wrong =
    invalidModel(request.agent.model, 'agent.model') ??
    (request.model === undefined ? undefined : invalidModel(request.model, 'model')) ??
    invalidHandles(request)
  if (wrong) throw new AdmissionError(`[spindle/core] invalid run request: ${wrong}`)
  if (request.idempotencyKey && !request.sessionId) {
    throw new AdmissionError('[spindle/core] an idempotencyKey needs a sessionId: duplicate submits are detected per session')
  }
  return hooks.length ? runHooks(request, hooks, messages) : messages
}

async function runHooks(request: RunRequest, hooks: readonly AdmissionHook[], messages: ModelMessage[]): Promise<ModelMessage[]> {
  for (const hook of hooks) {
    try {
      await hook(request)
    } catch (error) {
      if (SpindleError.isInstance(error) && error.code === 'admission_rejected') throw error
      throw new AdmissionError(`[spindle/core] the request was rejected by an admission hook: ${(error as Error)?.message ?? String(error)}`, { cause: error })
    }
  }
  return messages
}

/** What is wrong with `agent.tools` (an object or an array of tools), or undefined when every entry is a tool. */
function invalidTool(tools: unknown): string | undefined {
  if (tools === undefined) return undefined
  if (tools === null || typeof tools !== 'object') return `agent.tools must be an object or an array of tools, got ${describe(tools)}`
  const list = Array.isArray(tools)
  for (const key in tools) {
    const tool = (tools as Record<string, unknown>)[key]
    if (!isTool(tool)) return `agent.tools${list ? `[${key}]` : `.${key}`} is not a tool (got ${describe(tool)}); create tools with defineTool()`
    assertToolInputSchema((tool as { inputSchema: unknown }).inputSchema, (tool as { name: string }).name)
  }
  if (list) {
    // In an array each tool's name is what the model sees: two with one name would leave one silently unreachable.
    const names = (tools as Array<{ name: string }>).map((tool) => tool.name)
    const twice = names.findIndex((name, index) => names.indexOf(name) !== index)
    if (twice >= 0) {
      return `agent.tools[${names.indexOf(names[twice]!)}] and agent.tools[${twice}] are both named "${names[twice]}"; give each tool its own name, or pass an object keyed by the names the model sees`
    }
  }
  return undefined
}

/** What is wrong with a model reference (an id, a LanguageModel, or a non-empty fallback chain of them), or undefined. */
function invalidModel(value: unknown, field: string): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? `${field} is an empty model id; use a "provider:model" id` : undefined
  if (Array.isArray(value)) {
    if (value.length === 0) return `${field} is an empty fallback chain; list at least one model`
    for (let index = 0; index < value.length; index++) {
      const wrong = invalidModel(value[index], `${field}[${index}]`)
      if (wrong) return wrong
    }
    return undefined
  }
  if (isLanguageModel(value)) return undefined
  return `${field} must be a LanguageModel (with specificationVersion, provider, modelId and stream()) or a "provider:model" id, got ${describe(value)}`
}

function isLanguageModel(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const model = value as { specificationVersion?: unknown; provider?: unknown; modelId?: unknown; stream?: unknown }
  return (
    typeof model.specificationVersion === 'string' &&
    typeof model.provider === 'string' &&
    typeof model.modelId === 'string' &&
    typeof model.stream === 'function'
  )
}

/** What is wrong with a request's `runtime` (a RuntimeStore, or absent), or undefined. */
export function invalidRuntimeStore(runtime: unknown): string | undefined {
  if (runtime === undefined || (typeof runtime === 'object' && runtime !== null && typeof (runtime as { snapshot?: unknown }).snapshot === 'function'))
    return undefined
  return `runtime must be a RuntimeStore (new RuntimeStore() or createRuntime()), got ${describe(runtime)}`
}

/** What is wrong with the request's `runtime` (a RuntimeStore) or `signal` (an AbortSignal), or undefined. */
function invalidHandles(request: RunRequest): string | undefined {
  const { runtime, signal } = request as { runtime?: unknown; signal?: unknown }
  const wrongRuntime = invalidRuntimeStore(runtime)
  if (wrongRuntime) return wrongRuntime
  if (signal !== undefined) {
    const candidate = signal as { aborted?: unknown; addEventListener?: unknown } | null
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.aborted !== 'boolean' || typeof candidate.addEventListener !== 'function') {
      return `signal must be an AbortSignal (new AbortController().signal), got ${describe(signal)}`
    }
  }
  return undefined
}

function isTool(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const tool = value as { name?: unknown; execute?: unknown; inputSchema?: unknown }
  return typeof tool.name === 'string' && typeof tool.execute === 'function' && typeof tool.inputSchema === 'object' && tool.inputSchema !== null
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 5))}`
  return typeof value
}

function isEmpty(messages: ModelMessage[]): boolean {
  return messages.every((message) => {
    if (typeof message.content === 'string') return message.content.trim() === ''
    return message.content.length === 0 || message.content.every((part) => part.type === 'text' && part.text.trim() === '')
  })
}

/** The id of a tool result in the input whose call no earlier assistant message of the input asks for. */
function orphanResult(messages: ModelMessage[]): string | undefined {
  let asked: Set<string> | undefined
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') (asked ??= new Set()).add(part.toolCallId)
    } else if (message.role === 'tool') {
      for (const part of message.content) if (!asked?.has(part.toolCallId)) return part.toolCallId
    }
  }
  return undefined
}

/** The id of a tool call in the input that no later tool message of the input answers. */
function unansweredCall(messages: ModelMessage[]): string | undefined {
  let open: Set<string> | undefined
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') (open ??= new Set()).add(part.toolCallId)
    } else if (message.role === 'tool' && open) for (const part of message.content) open.delete(part.toolCallId)
  }
  return open?.values().next().value
}

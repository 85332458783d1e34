// RunRequest / RunOutput: what a run takes and returns, and the zod schema that admits a request.
import { z } from 'zod'
import type { RuntimePolicyInput } from '../policy/runtime-policy.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { JsonObject } from '../spec/json.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { ModelMessage, Usage } from '../spec/messages.js'
import type { FinishReason } from '../spec/run-store.js'
import type { RunError } from '../spec/run-error.js'
import type { ToolSet } from '../tools/tool.js'

/**
 * A model for a run: a `LanguageModel`, a `"provider:model"` id the registered providers resolve, or a list of them
 * tried in order (the next one when a call fails before producing any output; see `fallbackModel`).
 *
 * @example
 * const agent = { name: 'support', model: ['openai:gpt-4.1-mini', 'anthropic:claude-haiku-4-5'] }
 */
export type ModelReference = string | LanguageModel | ReadonlyArray<string | LanguageModel>

/** The plain description of an agent; an `Agent` instance has the same fields. */
export interface AgentSpec {
  name: string
  instructions?: string
  model: ModelReference
  tools?: ToolSet
  /** Per-agent policy overrides on top of the runtime's policy: they may tighten its guards (deny / allow lists, budgets, approvals) but never loosen them (see `mergePolicy`). */
  policy?: RuntimePolicyInput
}

/**
 * What `runtime.run()` and `runtime.stream()` take: the agent, the input (text or messages), the session to
 * continue, an optional model override, request-scoped state, an abort signal, metadata and an idempotency key. An
 * invalid request (empty input, no model, a malformed message) is rejected with an `AdmissionError` before anything
 * is written.
 *
 * @example
 * const output = await runtime.run({ sessionId: 'user-42', agent, input: 'What changed since yesterday?' })
 */
export interface RunRequest {
  /** Continue this session (created with this id when it does not exist); a new session when absent. */
  sessionId?: string
  /** Text, or messages (user / assistant / tool) to append before the run. */
  input: string | ModelMessage[]
  agent: AgentSpec
  /** Overrides the agent's model. */
  model?: ModelReference
  /** The request-scoped store; cloned for the run and disposed when it ends. */
  runtime?: RuntimeStore<any>
  signal?: AbortSignal
  metadata?: JsonObject
  /** The same key on a session returns the existing run (within `policy.idempotencyTtlMs`). */
  idempotencyKey?: string
  /** The user / tenant the session belongs to (used when the session is created). */
  resourceId?: string
  /** Set on a sub-agent's run (`agent.asTool()`): its events carry it as `parentRunId`. */
  parentRunId?: string
}

/**
 * The result of a run (`runtime.run()`, `stream().result`, `resume()`): its ids, why it finished, the final text,
 * the messages it appended to the session, the model calls made, token usage and cost, and the error when it failed.
 * A run that fails resolves with `finishReason: 'error'` and `error` rather than rejecting.
 *
 * @example
 * const output = await runtime.run({ agent, input: 'Hello' })
 * if (output.finishReason === 'error') console.error(output.error?.code, output.error?.message)
 */
export interface RunOutput {
  runId: string
  sessionId: string
  finishReason: FinishReason
  /** The final answer (empty when the run ended without one). */
  text: string
  /** Messages appended to the session by this run, in order. */
  messages: ModelMessage[]
  /** Model calls made. */
  steps: number
  usage: Usage
  /** Why the run failed or timed out: a distinct `code` (see `RunError`), with `status`, `retryable` and `provider` when known. */
  error?: RunError
}

/**
 * Options of `runtime.resume(runId, options)` and `recover()`: the agent to continue with (needed after a restart
 * when its model or tools are not registered by name), the request-scoped RuntimeStore, and an abort signal.
 */
export interface ResumeOptions {
  /** The agent to continue with; needed after a restart when its model or tools are not in the registries. */
  agent?: AgentSpec
  runtime?: RuntimeStore<any>
  signal?: AbortSignal
}

/**
 * A human's decision on a tool call that awaits approval, given to `runtime.approve(runId, callId, decision)`:
 * approve it (the tool runs when the run resumes) or deny it with a reason (the model receives the denial as the tool's
 * result).
 *
 * @example
 * await runtime.approve(runId, callId, { approved: false, reason: 'Refunds over $100 need a manager' })
 */
export interface ApprovalDecision {
  approved: boolean
  reason?: string
}

const textPart = z.object({ type: z.literal('text'), text: z.string() }).passthrough()
const messageSchema = z.union([
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(z.union([textPart, z.object({ type: z.literal('file') }).passthrough()]))]) }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(
      z.union([
        textPart,
        z.object({ type: z.literal('reasoning'), text: z.string() }).passthrough(),
        z.object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string() }).passthrough(),
      ]),
    ),
  }),
  z.object({ role: z.literal('tool'), content: z.array(z.object({ type: z.literal('tool-result'), toolCallId: z.string() }).passthrough()) }),
])

/**
 * The zod schema `admitRequest` checks a RunRequest against (session id, input messages, agent, metadata,
 * idempotency key). Useful to validate a request received over HTTP before calling the runtime.
 *
 * @example
 * const parsed = runRequestSchema.safeParse(body)
 * if (!parsed.success) return new Response(parsed.error.message, { status: 400 })
 */
export const runRequestSchema = z.object({
  sessionId: z.string().min(1).max(200).optional(),
  input: z.union([z.string(), z.array(messageSchema).min(1)]),
  agent: z
    .object({
      name: z.string().min(1).max(200),
      instructions: z.string().optional(),
      model: z.any().refine((value) => value !== undefined && value !== null, 'agent.model is required (a LanguageModel or a "provider:model" id)'),
    })
    .passthrough(),
  model: z.any().optional(),
  runtime: z.any().optional(),
  signal: z.any().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  idempotencyKey: z.string().min(1).max(500).optional(),
  resourceId: z.string().min(1).max(200).optional(),
  parentRunId: z.string().min(1).optional(),
})

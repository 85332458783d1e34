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

export interface ResumeOptions {
  /** The agent to continue with; needed after a restart when its model or tools are not in the registries. */
  agent?: AgentSpec
  runtime?: RuntimeStore<any>
  signal?: AbortSignal
}

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

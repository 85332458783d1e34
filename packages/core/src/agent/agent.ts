// Agent: a named model + instructions + tools that runs on an AgentRuntime (the seeds' `new Agent(...)` API).
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { SessionBusyError, ToolExecutionError } from '../errors/errors.js'
import type { RuntimePolicyInput } from '../policy/runtime-policy.js'
import { AgentRuntime } from '../runtime/agent-runtime.js'
import type { AgentSpec, ModelReference, RunOutput, RunRequest } from '../runtime/run-request.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { JsonObject } from '../spec/json.js'
import type { FinishReason } from '../spec/run-store.js'
import type { ModelMessage } from '../spec/messages.js'
import { defineTool } from '../tools/define-tool.js'
import type { Tool, ToolSet } from '../tools/tool.js'
import { sanitizeToolName } from '../tools/tool-name.js'
import { AgentEventStream, type AgentStream } from './agent-stream.js'

/** What `new Agent(...)` takes: name, instructions, description (for `asTool()`), model, tools, policy overrides and the `AgentRuntime` to run on. */
export interface AgentOptions {
  name: string
  instructions?: string
  /** What the agent is for; the default description of `asTool()`. */
  description?: string
  /** A `LanguageModel`, a `provider:model` id resolved by the AgentRuntime's providers, or a fallback chain. */
  model: ModelReference
  /** An object keyed by the names the model sees (`{ previewSheet }`), or an array (each tool's `name`). */
  tools?: ToolSet
  /** Per-agent overrides of the AgentRuntime's policy. */
  policy?: RuntimePolicyInput
  /** The kernel this agent runs on; a default in-memory one when absent. */
  agentRuntime?: AgentRuntime
}

/** One call of `agent.generate()` / `agent.stream()`: the prompt and, optionally, the session to continue, a RuntimeStore, a signal, an idempotency key, a model override. */
export interface AgentCallOptions {
  /** Text, or messages to append before the run. */
  prompt: string | ModelMessage[]
  /** The request's RuntimeStore: cloned for the call; its cleanups run when the call ends, however it ends. */
  runtime?: RuntimeStore<any>
  /** Continue this session; a new one when absent. */
  sessionId?: string
  signal?: AbortSignal
  metadata?: JsonObject
  idempotencyKey?: string
  /** Overrides the agent's model for this call. */
  model?: ModelReference
  /** The user / tenant a new session belongs to. */
  resourceId?: string
}

/** How `agent.asTool()` presents the agent to the calling model: the tool's name, id and description. */
export interface AgentToolOptions {
  /** The name the model sees (default: the agent's name, made provider-safe). */
  name?: string
  /** Identity in events and the journal (default `agent.<name>`). */
  id?: string
  description?: string
}

const agentToolInput = z.object({ prompt: z.string().min(1).describe('The task or question for the agent, with everything it needs to know') })

/**
 * @example
 * const assistant = new Agent({ name: 'assistant-xlsx', model: mockModel([{ text: 'Two KPIs: …' }]), tools: { previewSheet } })
 * const output = await assistant.generate({ prompt: 'Analyse the `Synthese` sheet', runtime })
 */
export class Agent implements AgentSpec {
  readonly name: string
  readonly instructions: string | undefined
  readonly description: string | undefined
  readonly model: ModelReference
  readonly tools: ToolSet | undefined
  readonly policy: RuntimePolicyInput | undefined
  #agentRuntime: AgentRuntime | undefined
  readonly #explicitRuntime: boolean

  constructor(options: AgentOptions) {
    this.name = options.name
    this.instructions = options.instructions
    this.description = options.description
    this.model = options.model
    this.tools = options.tools
    this.policy = options.policy
    this.#agentRuntime = options.agentRuntime
    this.#explicitRuntime = options.agentRuntime !== undefined
  }

  /** The AgentRuntime this agent runs on (created in memory on first use when none was given). */
  get agentRuntime(): AgentRuntime {
    return (this.#agentRuntime ??= new AgentRuntime())
  }

  /** Runs the agent to completion and returns the run's output; the runtime's cleanups have run when it resolves or rejects. */
  generate(options: AgentCallOptions): Promise<RunOutput> {
    return this.#generateOn(this.agentRuntime, options)
  }

  /** Starts the run at once and returns its events, `text` and `result` (see `AgentStream`). */
  stream(options: AgentCallOptions): AgentStream {
    const agentRuntime = this.agentRuntime
    return new AgentEventStream((cancel) => {
      const signal = options.signal ? AbortSignal.any([options.signal, cancel]) : cancel
      return RuntimeStore.runWithResources(agentRuntime.extensions.runtimeResources, () => agentRuntime.stream(this.#request({ ...options, signal })))
    })
  }

  /**
   * This agent as a tool of another agent: it runs on the caller's AgentRuntime (unless this agent was given
   * its own), sees the caller's runtime values without taking over their cleanups, and returns its final text.
   *
   * Only a sub-run that finishes with `stop` is a result. Any other finish reason (`awaiting_approval`,
   * `max_steps`, `max_tool_calls`, `budget`, `timeout`, `policy`, `length`, `content_filter`, `error`,
   * `cancelled`) fails the call with a `ToolExecutionError` that the caller's model sees: it names the reason,
   * the sub-run's id and its partial answer, if any. A sub-run waiting for approval stays suspended: the error
   * lists its pending call ids, and the application decides them with `approve(subRunId, callId, decision)`
   * and finishes it with `resume(subRunId)` — its answer then stays in the sub-run (the caller's call has
   * already failed; the caller does not suspend with it).
   *
   * Each call's sub-run has a session of its own, named after the call (`sub_…`, from the caller's idempotency
   * key, which is also the sub-run's). A crash while the sub-agent works leaves both runs `running`; resuming
   * the caller (or `recover()`) runs the call again, and the call continues its sub-run from that run's last
   * snapshot, or takes its answer if it has finished, instead of starting the sub-agent over: the sub-agent's
   * finished tool calls are not repeated.
   *
   * @example
   * const lead = new Agent({ name: 'lead', model, tools: { researcher: researcher.asTool() } })
   */
  asTool(options: AgentToolOptions = {}): Tool<{ prompt: string }, string> {
    return defineTool({
      name: options.name ?? sanitizeToolName(this.name),
      id: options.id ?? `agent.${this.name}`,
      description: options.description ?? this.description ?? `Delegates a task to the agent "${this.name}" and returns its answer.`,
      inputSchema: agentToolInput,
      effect: 'external',
      execute: async ({ prompt }, context) => {
        const host = context?.nested
        const parentRuntime = !this.#explicitRuntime && isAgentRuntime(host?.agentRuntime) ? host.agentRuntime : this.agentRuntime
        const caller = context?.runtime ?? RuntimeStore.current()
        // A borrowed view: the sub-run reads the caller's values but must not run the caller's cleanups.
        const runtime = caller?.snapshot({ inheritCleanups: false })
        // The call's sub-run is found again from the call's idempotency key: a session of its own named after the
        // key, and the key itself. After a crash the call is run again (see `reconcile`), and it continues that
        // sub-run, or takes its answer, instead of starting the sub-agent over (its tools' side effects again).
        const key = context?.idempotencyKey ? subRunKey(context.idempotencyKey) : undefined
        const existing = key ? await parentRuntime.runs.findRunByIdempotencyKey(key.sessionId, key.idempotencyKey) : undefined
        let approvals: ApprovalRequest[] | undefined
        let output: RunOutput
        if (existing) {
          output = await resumeWhenFree(context?.signal, () =>
            RuntimeStore.runWithResources(parentRuntime.extensions.runtimeResources, () =>
              parentRuntime.resume(existing.id, { agent: this, ...(runtime ? { runtime } : {}), ...(context?.signal ? { signal: context.signal } : {}) }),
            ),
          )
          // Continued without its stream: the calls it now waits on are read from its log.
          if (output.finishReason === 'awaiting_approval') approvals = await pendingApprovals(parentRuntime, output.runId)
        } else {
          const request: RunRequest = {
            ...this.#request({ prompt, runtime, signal: context?.signal, ...key }),
            parentRunId: host?.parentRunId,
          }
          // The sub-run's events are nested in the parent's stream (each keeps its own runId and seq).
          const stream = RuntimeStore.runWithResources(parentRuntime.extensions.runtimeResources, () => parentRuntime.stream(request))
          for await (const event of stream) {
            const pressure = host?.forward?.(event)
            if (pressure) await pressure
            if (event.type === 'approval.requested') (approvals ??= []).push(event)
          }
          output = await stream.result
        }
        if (output.finishReason !== 'stop') throw subRunFailure(this.name, output, approvals?.filter((event) => event.runId === output.runId) ?? [])
        return output.text
      },
      // A call left `started` by a crash is run again: it finds its sub-run by the call's key (above) and continues
      // it, or takes its answer. Nothing is repeated but what the sub-run's own journal would repeat.
      reconcile: () => ({ action: 'rerun' }),
    })
  }

  #generateOn(agentRuntime: AgentRuntime, options: AgentCallOptions): Promise<RunOutput> {
    return RuntimeStore.runWithResources(agentRuntime.extensions.runtimeResources, () => agentRuntime.run(this.#request(options)))
  }

  #request(options: AgentCallOptions): RunRequest {
    return {
      agent: this,
      input: options.prompt,
      runtime: options.runtime,
      sessionId: options.sessionId,
      signal: options.signal,
      metadata: options.metadata,
      idempotencyKey: options.idempotencyKey,
      model: options.model,
      resourceId: options.resourceId,
    }
  }
}

type ApprovalRequest = Extract<AgentEvent, { type: 'approval.requested' }>

/** Why each finish reason other than `stop` left the sub-run without an answer. */
const endings: Record<Exclude<FinishReason, 'stop'>, string> = {
  awaiting_approval: 'it is suspended until a human decides on its pending calls',
  max_steps: 'it reached its step limit (policy.maxSteps) without a final answer',
  max_tool_calls: 'it reached its tool-call limit (policy.maxToolCalls) without a final answer',
  budget: 'it ran out of its token or cost budget',
  timeout: 'it ran out of time (policy.runTimeoutMs)',
  policy: 'a policy check stopped it',
  length: "its answer was cut off at the model's output limit",
  content_filter: "the model's content filter stopped its answer",
  error: 'it failed',
  cancelled: 'it was cancelled',
}

/**
 * The tool error for a sub-run that ended without a final answer: the reason, the sub-run's id, the calls it
 * waits on (and how to decide them) and its partial answer, for the caller's model and for whoever reads the log.
 */
function subRunFailure(agentName: string, output: RunOutput, approvals: ApprovalRequest[]): ToolExecutionError {
  const { runId, finishReason } = output
  const text = output.text || lastAssistantText(output.messages)
  const reason = finishReason as Exclude<FinishReason, 'stop'>
  const calls = approvals.map((event) => `${event.callId} (${event.toolName})`).join(', ')
  const why = reason === 'awaiting_approval' && calls ? `it is suspended until a human decides on ${calls}` : (endings[reason] ?? 'it gave no final answer')
  let message = `[spindle/core] agent "${agentName}" ended with ${reason} (sub-run "${runId}"): ${why}${output.error ? `: ${output.error.message.replace(/\.$/, '')}` : ''}.`
  if (reason === 'awaiting_approval') {
    message += ` Decide each call with approve("${runId}", callId, decision), then resume("${runId}") finishes it; its answer does not come back to this call.`
  }
  if (text) message += ` Partial answer: ${text}`
  return new ToolExecutionError(message, {
    details: { runId, finishReason, ...(approvals.length ? { pendingCallIds: approvals.map((event) => event.callId) } : {}), ...(text ? { text } : {}) },
  })
}

/**
 * The approvals a suspended run waits on, from its event log: those requested since it last started or resumed
 * (earlier ones were decided before that resume).
 */
async function pendingApprovals(agentRuntime: AgentRuntime, runId: string): Promise<ApprovalRequest[]> {
  const events = await agentRuntime.runs.listEvents(runId)
  const requested: ApprovalRequest[] = []
  for (const event of events) {
    if (event.type === 'run.started' || event.type === 'run.resumed') requested.length = 0
    else if (event.type === 'approval.requested') requested.push(event)
  }
  return requested
}

/** The text of the sub-run's last assistant message that has any: what it wrote before it stopped. */
function lastAssistantText(messages: readonly ModelMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role !== 'assistant') continue
    let text = ''
    for (const part of message.content) if (part.type === 'text') text += part.text
    if (text) return text
  }
  return ''
}

/**
 * Resumes a sub-run, waiting while the dead process's lease on it is still running: the process that died held the
 * caller and the sub-run, and the sub-run's lease, renewed last, can outlive the caller's by up to a heartbeat.
 * Waits until the call's signal ends it (the tool's deadline, or the caller's cancellation).
 */
async function resumeWhenFree(signal: AbortSignal | undefined, resume: () => Promise<RunOutput>): Promise<RunOutput> {
  for (let delay = 25; ; delay = Math.min(1_000, delay * 2)) {
    try {
      return await resume()
    } catch (error) {
      if (!SessionBusyError.isInstance(error) || signal?.aborted) throw error
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay)
      function done() {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      signal?.addEventListener('abort', done, { once: true })
    })
    if (signal?.aborted) throw signal.reason
  }
}

/**
 * Where a call's sub-run lives: a session named after the caller's idempotency key (hashed to fit a session id),
 * and the key itself as the sub-run's idempotency key (hashed when it is over the 500 characters a key may have).
 */
function subRunKey(callKey: string): { sessionId: string; idempotencyKey: string } {
  const hash = createHash('sha256').update(callKey).digest('hex').slice(0, 40)
  return { sessionId: `sub_${hash}`, idempotencyKey: callKey.length <= 500 ? callKey : hash }
}

function isAgentRuntime(value: unknown): value is AgentRuntime {
  return (
    typeof value === 'object' && value !== null && typeof (value as AgentRuntime).run === 'function' && typeof (value as AgentRuntime).stream === 'function'
  )
}

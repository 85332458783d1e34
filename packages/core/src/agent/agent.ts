// Agent: a named model + instructions + tools that runs on an AgentRuntime (the seeds' `new Agent(...)` API).
import { z } from 'zod'
import { ToolExecutionError } from '../errors/errors.js'
import type { RuntimePolicyInput } from '../policy/runtime-policy.js'
import { AgentRuntime } from '../runtime/agent-runtime.js'
import type { AgentSpec, ModelReference, RunOutput, RunRequest } from '../runtime/run-request.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { JsonObject } from '../spec/json.js'
import type { ModelMessage } from '../spec/messages.js'
import { defineTool } from '../tools/define-tool.js'
import type { Tool, ToolSet } from '../tools/tool.js'
import { sanitizeToolName } from '../tools/tool-name.js'
import { AgentEventStream, type AgentStream } from './agent-stream.js'

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
        const request: RunRequest = {
          ...this.#request({
            prompt,
            // A borrowed view: the sub-run reads the caller's values but must not run the caller's cleanups.
            runtime: caller?.snapshot({ inheritCleanups: false }),
            signal: context?.signal,
          }),
          parentRunId: host?.parentRunId,
        }
        // The sub-run's events are nested in the parent's stream (each keeps its own runId and seq).
        const stream = RuntimeStore.runWithResources(parentRuntime.extensions.runtimeResources, () => parentRuntime.stream(request))
        for await (const event of stream) host?.forward?.(event)
        const output = await stream.result
        if (output.finishReason === 'error' || output.finishReason === 'cancelled') {
          throw new ToolExecutionError(`[spindle/core] agent "${this.name}" ended with ${output.finishReason}: ${output.error?.message ?? 'no answer'}`, {
            details: { runId: output.runId, finishReason: output.finishReason },
          })
        }
        return output.text
      },
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

function isAgentRuntime(value: unknown): value is AgentRuntime {
  return typeof value === 'object' && value !== null && typeof (value as AgentRuntime).run === 'function' && typeof (value as AgentRuntime).stream === 'function'
}

// What every part of one run execution shares: what the runtime gave it (deps, init), its limits, its messages and
// its state as the loop advances it. The parts (events, journal, commit, model request) read and update it here.
import type { CompactionService } from '../compaction/compaction-service.js'
import type { ContextPipeline } from '../context/context-pipeline.js'
import type { ContextWindow } from '../context/context-window.js'
import type { RunEventChannel } from '../events/event-channel.js'
import type { Redactor } from '../observability/redactor.js'
import type { PriceTable } from '../observability/price-table.js'
import type { RuntimeObserver } from '../spec/runtime-observer.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { EventBus } from '../spec/event-bus.js'
import type { AgentEvent } from '../spec/events.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { SessionLease } from '../spec/session-gate.js'
import type { Stores } from '../spec/stores.js'
import { findStoreBatch } from '../spec/store-batch.js'
import type { ToolRuntime } from '../tools/tool-runtime.js'
import type { ToolScope } from '../tools/tool-scope.js'
import type { AgentSpec } from './run-request.js'
import type { RunState } from './run-state.js'
import { stepWriter, type StepWriter } from './step-writer.js'
import type { TransitionLimits } from './transition.js'

/** A handoff target's model, tool scope and policy, as the runtime resolves them (see AgentResolver). */
export interface ResolvedAgent {
  model: LanguageModel
  scope: ToolScope
  policy?: RuntimePolicy
}

/** Resolves a handoff target (the runtime's AgentResolver): a service the execution uses, not the runtime itself. */
export interface HandoffResolver {
  resolve(agent: AgentSpec): ResolvedAgent
}

/** The services a run uses, from the runtime. */
export interface RunExecutionDeps {
  stores: Stores
  bus: EventBus
  policy: RuntimePolicy
  tools: ToolRuntime
  context: ContextPipeline
  compaction: CompactionService
  ownerId: string
  /** Handed to tools that run a nested agent (`agent.asTool()`), as their host; opaque to the execution. */
  agentRuntime: unknown
  /** Resolves a handoff target's model and tool scope. */
  agents?: HandoffResolver
  /** Observability (extensions.observers / redactor / prices): synchronous observers, secret redaction, model prices. */
  observers?: readonly RuntimeObserver[]
  redactor?: Redactor | false
  prices?: PriceTable
}

/** What one execution of a run starts from. */
export interface RunExecutionInit {
  state: RunState
  agentName: string
  instructions: string | undefined
  model: LanguageModel
  scope: ToolScope
  window: ContextWindow
  lease: SessionLease
  runtime: RuntimeStore | undefined
  channel: RunEventChannel<AgentEvent> | undefined
  signal: AbortSignal
  /** Messages already appended by this execution before the loop (the user input). */
  messages: ModelMessage[]
  parentRunId?: string
}

/** What the runtime starts a run with (its agent spec, not yet the fields a run reads). */
export type RunExecutionStart = Omit<RunExecutionInit, 'agentName' | 'instructions' | 'messages'> & {
  agent: AgentSpec
  messages?: ModelMessage[]
}

/**
 * The per-run data the parts of an execution share. Built by `runContext()` as one literal: a class instance's
 * hidden class dies at a full GC when no run is alive, and the code compiled against it (see util/fast-path.ts).
 */
export interface RunContext {
  /** The run's state: a value, replaced as the loop advances (never changed once a snapshot was given it). */
  state: RunState
  readonly deps: RunExecutionDeps
  readonly init: RunExecutionInit
  readonly limits: TransitionLimits
  /** The messages this execution wrote (and, on resume, the ones the run wrote before). */
  readonly messages: ModelMessage[]
  /** The run's store writes, queued and committed together. */
  readonly writer: StepWriter
  readonly runId: string
  readonly sessionId: string
}

/** The shared data of a run starting from `init` with the runtime's `deps`. */
export function runContext(deps: RunExecutionDeps, init: RunExecutionInit): RunContext {
  return {
    state: init.state,
    deps,
    init,
    limits: limitsOf(deps.policy),
    messages: init.messages,
    writer: stepWriter(deps.stores, findStoreBatch(deps.stores)),
    runId: init.state.runId,
    sessionId: init.state.sessionId,
  }
}

/** The rest of the run follows `policy` (a handoff to an agent with its own). */
export function usePolicy(run: RunContext, policy: RuntimePolicy): void {
  run.deps.policy = policy
  Object.assign(run.limits, limitsOf(policy))
}

function limitsOf(policy: RuntimePolicy): TransitionLimits {
  return {
    maxSteps: policy.maxSteps,
    maxToolCalls: policy.maxToolCalls,
    maxLengthContinuations: policy.maxLengthContinuations,
    doomLoopThreshold: policy.doomLoopThreshold,
    budget: policy.budget,
  }
}

/**
 * The deps of a run, as one literal with every field: the runtime builds each run's deps here, so every run's have
 * the one map this literal's allocation site holds, which outlives any run and a major GC (see util/fast-path.ts).
 */
export function runExecutionDeps(deps: RunExecutionDeps): RunExecutionDeps {
  return {
    stores: deps.stores,
    bus: deps.bus,
    policy: deps.policy,
    tools: deps.tools,
    context: deps.context,
    compaction: deps.compaction,
    ownerId: deps.ownerId,
    agentRuntime: deps.agentRuntime,
    agents: deps.agents,
    observers: deps.observers,
    redactor: deps.redactor,
    prices: deps.prices,
  }
}

/** A run's init, as one literal with every field (see `runExecutionDeps`). */
export function runExecutionInit(start: RunExecutionStart): RunExecutionInit {
  return {
    state: start.state,
    agentName: start.agent.name,
    instructions: start.agent.instructions,
    model: start.model,
    scope: start.scope,
    window: start.window,
    lease: start.lease,
    runtime: start.runtime,
    channel: start.channel,
    signal: start.signal,
    messages: start.messages ?? [],
    parentRunId: start.parentRunId,
  }
}

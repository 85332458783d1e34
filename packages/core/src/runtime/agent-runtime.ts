// AgentRuntime: the public face of the kernel — run, stream, resume, subscribe, cancel, approve, recover. It holds
// the wiring (RuntimeServices) and drives the modules that do the work: start-run.ts, resume-run.ts,
// approval-queue.ts; each run's loop is a RunExecution (see packages/core/README.md, "How a run flows").
import { instructionsAdapter, historyAdapter } from '../context/builtin-adapters.js'
import { ContextPipeline } from '../context/context-pipeline.js'
import type { ContextAdapter } from '../spec/context-adapter.js'
import type { Tokenizer } from '../context/tokenizer.js'
import { readArtifactTool, type ReadArtifactToolOptions } from '../context/read-artifact-tool.js'
import { AbortedError, ConfigurationError, StoreError } from '../errors/errors.js'
import { eventChannel } from '../events/event-channel.js'
import { Extensions } from '../extensions/extensions.js'
import { createRuntimePolicy, type RuntimePolicy, type RuntimePolicyInput } from '../policy/runtime-policy.js'
import type { ProviderRegistry } from '../providers/provider-registry.js'
import type { CompactionService } from '../compaction/compaction-service.js'
import type { EventBus } from '../spec/event-bus.js'
import type { AgentEvent, AgentEventType, LaggedEvent } from '../spec/events.js'
import type { JsonObject } from '../spec/json.js'
import type { RunQueue } from '../spec/run-queue.js'
import type { RunRecord } from '../spec/run-store.js'
import type { SessionGate } from '../spec/session-gate.js'
import type { Stores } from '../spec/stores.js'
import { timeOrderedId } from '../stores/time-ordered-id.js'
import { ToolRuntime } from '../tools/tool-runtime.js'
import type { AdmissionHook } from './admission.js'
import { AgentResolver } from './agent-resolver.js'
import { ApprovalQueue } from './approval-queue.js'
import { leaseIsFree, defaultOwnerId } from './owner-identity.js'
import { recoverRuns, type RecoverOptions, type RecoverResult } from './recover-runs.js'
import { claimRun, resumeRun } from './resume-run.js'
import { endNotRecorded } from './run-commit.js'
import type { AgentSpec, ApprovalDecision, ResumeOptions, RunOutput, RunRequest } from './run-request.js'
import { RuntimeServices } from './runtime-services.js'
import { withRuntimeStore } from './runtime-store-scope.js'
import { SessionWindowCache } from './session-window-cache.js'
import { admit, createRecord, runWithKey, startRun } from './start-run.js'

export type { RecoverResult } from './recover-runs.js'

/**
 * The third argument of `new AgentRuntime(extensions, policy, options)`: admission hooks, this process's owner id in
 * run leases, the tokenizer that measures the context window, the size of the context-window cache, and the built-in
 * `read_artifact` tool.
 *
 * @example
 * const runtime = new AgentRuntime(extensions, {}, { ownerId: `worker-${process.pid}`, admission: [rejectOverQuota] })
 */
export interface AgentRuntimeOptions {
  /** Hooks that may reject a request before anything is written (rate limits, moderation). */
  admission?: AdmissionHook[]
  /**
   * This process's identity in run leases (default: host, pid and process start time, so a run left by a dead process
   * of this host is taken back at once instead of after its lease). A runtime with a custom id takes back the runs
   * of that id at once; never give one id to two live processes.
   */
  ownerId?: string
  tokenizer?: Tokenizer
  /** Sessions whose context window is kept in memory between runs. */
  windowCacheSize?: number
  /** The built-in `read_artifact` tool, added to every run that has tools (default on); `false` leaves it out. */
  readArtifact?: false | ReadArtifactToolOptions
}

/**
 * Which events `runtime.subscribe(filter)` delivers: a predicate, or a run id, session id and event types to match,
 * with the subscription's buffer `capacity` (a slow reader past it receives a `lagged` marker instead of blocking the
 * runs) and a signal that ends it.
 *
 * @example
 * for await (const event of runtime.subscribe({ sessionId: 'user-42', types: ['tool.result'] })) console.log(event)
 */
export type SubscribeFilter =
  ((event: AgentEvent) => boolean) | { runId?: string; sessionId?: string; types?: AgentEventType[]; capacity?: number; signal?: AbortSignal }

/** `stream()`'s result: the lossless event stream, plus the run's output. */
export interface RunStream extends AsyncIterable<AgentEvent> {
  readonly result: Promise<RunOutput>
}

/**
 * The kernel's runtime: runs agents (`run`, `stream`), continues them (`resume`, `recover`, `work` for queued
 * runs), takes human decisions (`approve`), cancels them and broadcasts their events (`subscribe`). Stores, gate,
 * bus, queue, tools, providers and observers come from the extensions (in-memory defaults); the policy bounds
 * every run (steps, tool calls, time, budget, approvals).
 *
 * @example
 * const runtime = new AgentRuntime(new Extensions(), { maxSteps: 8 })
 * const output = await runtime.run({ agent: { name: 'helper', model: mockModel([{ text: 'Hi!' }]) }, input: 'Hello' })
 */
export class AgentRuntime {
  readonly extensions: Extensions
  readonly policy: RuntimePolicy
  readonly tools: ToolRuntime
  readonly context: ContextPipeline
  readonly ownerId: string
  readonly #services: RuntimeServices
  readonly #approvals: ApprovalQueue

  constructor(extensions: Extensions = new Extensions(), policy: RuntimePolicyInput | RuntimePolicy = {}, options: AgentRuntimeOptions = {}) {
    this.extensions = extensions
    this.policy = createRuntimePolicy(policy as RuntimePolicyInput)
    this.ownerId = options.ownerId ?? defaultOwnerId()
    this.tools = new ToolRuntime(extensions.tools)
    const adapters = extensions.context
    let current: readonly ContextAdapter[] = [instructionsAdapter, historyAdapter]
    this.context = new ContextPipeline({
      tokenizer: options.tokenizer,
      // A live view: adapters added to the extensions later are used too. The list is rebuilt only when they changed.
      adapters: () => (withBuiltins(current, adapters) ? current : (current = [instructionsAdapter, historyAdapter, ...adapters])),
    })
    const readArtifact = options.readArtifact === false ? undefined : readArtifactTool(options.readArtifact || {})
    const services: RuntimeServices = new RuntimeServices({
      extensions,
      policy: this.policy,
      ownerId: this.ownerId,
      tools: this.tools,
      context: this.context,
      agents: new AgentResolver(extensions, this.policy, this.tools, readArtifact),
      windows: new SessionWindowCache(() => services.sessions, this.context.tokenizer, options.windowCacheSize),
      admission: options.admission ?? [],
      host: this,
    })
    this.#services = services
    this.#approvals = new ApprovalQueue(services)
  }

  get providers(): ProviderRegistry {
    return this.extensions.providers
  }
  get sessions(): Stores['sessions'] {
    return this.#services.sessions
  }
  get runs(): Stores['runs'] {
    return this.#services.runs
  }
  get executions(): Stores['executions'] {
    return this.#services.executions
  }
  get snapshots(): Stores['snapshots'] {
    return this.#services.snapshots
  }
  get embeddings(): Stores['embeddings'] {
    return this.#services.embeddings
  }
  get artifacts(): Stores['artifacts'] {
    return this.#services.artifacts
  }
  get sessionGate(): SessionGate {
    return this.#services.gate
  }
  /** The broadcast bus behind `subscribe()`. */
  get events(): EventBus {
    return this.#services.bus
  }
  /** Where `enqueue()` puts runs for `work()`. */
  get queue(): RunQueue {
    return this.#services.queue
  }
  get compaction(): CompactionService {
    return this.#services.compaction
  }

  /** Runs an agent to completion (or suspension for approval). Admission errors reject before anything is written. */
  run(request: RunRequest): Promise<RunOutput> {
    return withRuntimeStore(this.extensions, request?.runtime, (runtime) => startRun(this.#services, request, runtime, undefined))
  }

  /** Streams every event of the run, losslessly and with back-pressure. Stopping early cancels the run. */
  stream(request: RunRequest): RunStream {
    const channel = eventChannel<AgentEvent>()
    // The run's own controller, created here so that a consumer who stops reading aborts the run directly (one
    // AbortController per run instead of two linked ones: each costs about 2 µs on Node 20).
    const controller = new AbortController()
    channel.onAbandon(() => controller.abort(new AbortedError('[spindle/core] the stream consumer stopped reading; the run was cancelled')))
    const result = withRuntimeStore(this.extensions, request?.runtime, (runtime) => startRun(this.#services, request, runtime, channel, controller)).then(
      (output) => {
        channel.close()
        return output
      },
      (error: unknown) => {
        channel.close(error)
        throw error
      },
    )
    result.catch(() => {})
    return { result, [Symbol.asyncIterator]: () => channel }
  }

  /** Continues a crashed or suspended run from its last snapshot; a finished run returns its output. */
  async resume(runId: string, options: ResumeOptions = {}): Promise<RunOutput> {
    return withRuntimeStore(this.extensions, options.runtime, (runtime) => resumeRun(this.#services, runId, options, runtime, false))
  }

  /**
   * Records a human decision on a call awaiting approval; `resume(runId)` then continues.
   *
   * Decisions are applied one at a time per run, each to the latest snapshot, so concurrent calls all keep
   * theirs: in this process they queue per run, and across processes sharing the stores they hold the run's
   * session gate — the lease `resume()` and `cancel()` hold while they read that snapshot. While another run
   * of the same session is active, a decision therefore waits for it (up to `policy.queueTimeoutMs`).
   *
   * @example
   * await Promise.all(pendingCallIds.map((callId) => runtime.approve(runId, callId, true)))
   * const output = await runtime.resume(runId)
   */
  approve(runId: string, callId: string, decision: ApprovalDecision | boolean): Promise<void> {
    return this.#approvals.approve(runId, callId, decision)
  }

  /** Cancels a run: an active one is aborted (finish reason `cancelled`); a suspended one is closed. */
  async cancel(runId: string): Promise<boolean> {
    const active = this.#services.active.get(runId)
    if (active) {
      active.controller.abort(new AbortedError(`[spindle/core] run "${runId}" was cancelled`))
      await active.promise.catch(() => {})
      return true
    }
    const run = await this.runs.getRun(runId)
    if (!run || (run.status !== 'suspended' && run.status !== 'interrupted')) return false
    await resumeRun(this.#services, runId, {}, undefined, true)
    return true
  }

  /**
   * Admits a request and queues its run; returns at once with the run id (the same id for the same
   * `idempotencyKey` on a session). Workers execute it with `work()`.
   */
  async enqueue(request: RunRequest): Promise<{ runId: string; sessionId: string }> {
    const services = this.#services
    const { policy, input, sessionId } = await admit(services, request)
    const model = services.agents.model(request.model ?? request.agent.model)
    if (request.idempotencyKey) {
      const existing = await runWithKey(services, sessionId, request.idempotencyKey, policy)
      if (existing) return { runId: existing.id, sessionId }
    }
    const runId = `run_${timeOrderedId()}`
    const winner = await createRecord(services, request, input, model, sessionId, runId, 'queued')
    if (typeof winner === 'object') return { runId: winner.id, sessionId }
    services.runAgents.set(runId, request.agent)
    await this.queue.enqueue({ runId, sessionId })
    return { runId, sessionId }
  }

  /**
   * Executes queued runs until `signal` aborts, then finishes the runs in flight (graceful shutdown).
   * `agents` gives the agents by name when their tools or models are not in the registries.
   */
  async work(options: { concurrency?: number; signal: AbortSignal; agents?: AgentSpec[] }): Promise<void> {
    await this.extensions.ready()
    const queue = this.queue
    if (!queue.work) throw new ConfigurationError('[spindle/core] the configured run queue cannot be worked from this process (it has no work() method)')
    await queue.work(
      async (job) => {
        const run = await this.runs.getRun(job.runId)
        const name = (run?.request.agent as JsonObject | undefined)?.name
        const agent = options.agents?.find((candidate) => candidate.name === name)
        // The record just read is the one the resume starts from (one read per job, not two).
        const output = await withRuntimeStore(this.extensions, undefined, (runtime) => resumeRun(this.#services, job.runId, { agent }, runtime, false, run))
        // The run ended but the store refused its last write (a database outage at that moment): its record still
        // says `running`. Failing the job makes the queue run it again later, and that resume records the end.
        if (endNotRecorded(output)) {
          throw new StoreError(
            `[spindle/core] run "${job.runId}" ended (${output.finishReason}) but its run record could not be updated; the job fails so that the queue retries it and resume() records the end`,
            {
              details: { runId: job.runId, finishReason: output.finishReason },
            },
          )
        }
      },
      { concurrency: options.concurrency ?? 1, signal: options.signal },
    )
  }

  /** A bounded broadcast of every run's events; a slow subscriber gets `lagged` and never slows a run. */
  subscribe(filter?: SubscribeFilter): AsyncIterable<AgentEvent | LaggedEvent> {
    if (typeof filter === 'function' || filter === undefined) return this.events.subscribe({ filter })
    const types = filter.types ? new Set<string>(filter.types) : undefined
    const { runId, sessionId } = filter
    return this.events.subscribe({
      capacity: filter.capacity,
      signal: filter.signal,
      filter: (event) => (!runId || event.runId === runId) && (!sessionId || event.sessionId === sessionId) && (!types || types.has(event.type)),
    })
  }

  /**
   * Finds runs left `running` by a dead process (lease expired) and resumes them, or marks them `interrupted`.
   * `agents` gives the agents by name when their tools or models are not in the registries. A run refused because
   * another unfinished run of its session must go first is tried again after the others; `busy` lists the runs
   * still refused then (their session's last run is awaiting approval, or held by a live process). A sub-run of an
   * `agent.asTool()` call whose caller is recovered too is continued by that call, not here (it is not in `resumed`).
   * A run that cannot be resumed (its agent cannot be rebuilt: pass it in `agents`; a store failed) is left as it is
   * and listed in `failed` with its error; the others are recovered all the same. Two processes may recover at the
   * same moment: each run is claimed with a compare-and-set (`RunStore.claimRun`) before anything is written for it,
   * so exactly one continues it; the other lists it in `busy` (not in `failed`) and does not try it again.
   * Runs are resumed `concurrency` at a time (default 4; one per session at a time), and `recover()` returns once
   * the first ones are claimed: await the result's `done` for every run's output (`onProgress` reports each run).
   */
  async recover(options: RecoverOptions = {}): Promise<RecoverResult> {
    await this.extensions.ready()
    const services = this.#services
    return recoverRuns(options, {
      stale: async () => {
        const now = Date.now()
        // Queued runs are recovered too when the queue lived in this process's memory (it died with it).
        const statuses: RunRecord['status'][] = this.extensions.queue ? ['running'] : ['running', 'queued']
        const runs = await this.runs.listRuns({ status: statuses, limit: 1000 })
        return runs.filter((run) => !services.active.has(run.id) && (leaseIsFree(run.lease, now) || run.lease?.owner === this.ownerId))
      },
      claim: (run, patch) => claimRun(services, run, patch),
      resume: (run, agent, onClaimed) => {
        services.onClaimed.set(run.id, onClaimed)
        return this.resume(run.id, { agent }).finally(() => services.onClaimed.delete(run.id))
      },
    })
  }
}

/** Whether `list` is the built-in adapters followed by exactly `added`, in order. */
function withBuiltins(list: readonly ContextAdapter[], added: readonly ContextAdapter[]): boolean {
  if (list.length !== added.length + 2) return false
  for (let index = 0; index < added.length; index++) if (list[index + 2] !== added[index]) return false
  return true
}

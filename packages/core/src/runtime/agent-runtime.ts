// AgentRuntime: the public face of the kernel — run, stream, resume, subscribe, cancel, approve, recover.
import { CompactionService } from '../compaction/compaction-service.js'
import { truncateCompaction } from '../compaction/truncate-compaction.js'
import { compactionBreaker } from '../compaction/compaction-breaker.js'
import { instructionsAdapter, historyAdapter } from '../context/builtin-adapters.js'
import { ContextPipeline } from '../context/context-pipeline.js'
import type { ContextAdapter } from '../context/context-adapter.js'
import { ContextWindow } from '../context/context-window.js'
import type { Tokenizer } from '../context/tokenizer.js'
import { AdmissionError, AbortedError, ConfigurationError, DuplicateError, NotFoundError, SessionBusyError, StoreError, TimeoutError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import { EventChannel } from '../events/event-channel.js'
import { InProcessEventBus } from '../events/in-process-event-bus.js'
import { Extensions } from '../extensions/extensions.js'
import { InProcessSessionGate, neverLost } from '../gate/in-process-session-gate.js'
import { createRuntimePolicy, mergePolicy, type RuntimePolicy, type RuntimePolicyInput } from '../policy/runtime-policy.js'
import type { ProviderRegistry } from '../providers/provider-registry.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { EventBus } from '../spec/event-bus.js'
import type { AgentEvent, AgentEventType, LaggedEvent } from '../spec/events.js'
import type { JsonObject } from '../spec/json.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { RunPatch, RunRecord } from '../spec/run-store.js'
import { runStatusOf } from '../spec/run-status.js'
import type { SessionGate, SessionLease } from '../spec/session-gate.js'
import type { Stores } from '../spec/stores.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { timeOrderedId } from '../stores/time-ordered-id.js'
import { ToolRuntime } from '../tools/tool-runtime.js'
import { toolEntries } from '../tools/tool-registry.js'
import type { Tool } from '../tools/tool.js'
import type { ToolScope } from '../tools/tool-scope.js'
import { readArtifactTool, type ReadArtifactToolOptions } from '../context/read-artifact-tool.js'
import { findHandoffTarget } from './handoff-target.js'
import { type AdmissionHook, admitRequestNow, invalidRuntimeStore } from './admission.js'
import type { AgentSpec, ApprovalDecision, ModelReference, ResumeOptions, RunOutput, RunRequest } from './run-request.js'
import { announceInterruptedStep, continueNumbering } from './resume-numbering.js'
import { answerText, initialRunState, type RunState } from './run-state.js'
import { endNotRecorded, RunExecution, runExecutionDeps, runExecutionInit, type RunExecutionStart } from './run-execution.js'
import { InProcessRunQueue } from './in-process-run-queue.js'
import type { RunQueue } from '../spec/run-queue.js'
import { outputFromStore } from './output-from-store.js'
import { defaultOwnerId, leaseIsFree } from './owner-identity.js'
import { recoverRuns, type RecoverOptions, type RecoverResult } from './recover-runs.js'

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

export type SubscribeFilter =
  | ((event: AgentEvent) => boolean)
  | { runId?: string; sessionId?: string; types?: AgentEventType[]; capacity?: number; signal?: AbortSignal }

/** `stream()`'s result: the lossless event stream, plus the run's output. */
export interface RunStream extends AsyncIterable<AgentEvent> {
  readonly result: Promise<RunOutput>
}

interface ActiveRun {
  controller: AbortController
  promise: Promise<RunOutput>
}

/**
 * @example
 * const runtime = new AgentRuntime(new Extensions(), { maxSteps: 8 })
 * const output = await runtime.run({ agent: { name: 'helper', model: mockModel([{ text: 'Hi!' }]) }, input: 'Hello' })
 */
export type { RecoverResult } from './recover-runs.js'

export class AgentRuntime {
  readonly extensions: Extensions
  readonly policy: RuntimePolicy
  readonly tools: ToolRuntime
  readonly context: ContextPipeline
  readonly ownerId: string
  readonly #options: AgentRuntimeOptions
  readonly #defaultStores: Stores
  readonly #defaultGate = new InProcessSessionGate()
  readonly #defaultBus = new InProcessEventBus()
  readonly #defaultQueue = new InProcessRunQueue()
  readonly #active = new Map<string, ActiveRun>()
  readonly #agents = new Map<string, AgentSpec>()
  readonly #windows = new Map<string, ContextWindow>()
  /** Per run, the tail of its queue of approval decisions. */
  readonly #decisions = new Map<string, Promise<void>>()
  /** Starts of runs with an idempotency key, per session and key, while they start. */
  readonly #inFlight = new Map<string, Promise<RunOutput>>()
  /** Per run being recovered, told once this process has claimed it. */
  readonly #onClaimed = new Map<string, () => void>()
  readonly #readArtifact: Tool | undefined
  #compaction: CompactionService | undefined

  constructor(extensions: Extensions = new Extensions(), policy: RuntimePolicyInput | RuntimePolicy = {}, options: AgentRuntimeOptions = {}) {
    this.extensions = extensions
    this.policy = createRuntimePolicy(policy as RuntimePolicyInput)
    this.#options = options
    this.ownerId = options.ownerId ?? defaultOwnerId()
    this.tools = new ToolRuntime(extensions.tools)
    this.#defaultStores = memoryStores()
    this.#readArtifact = options.readArtifact === false ? undefined : readArtifactTool(options.readArtifact || {})
    const adapters = extensions.context
    let current: readonly ContextAdapter[] = [instructionsAdapter, historyAdapter]
    this.context = new ContextPipeline({
      tokenizer: options.tokenizer,
      // A live view: adapters added to the extensions later are used too. The list is rebuilt only when they changed.
      adapters: () => (withBuiltins(current, adapters) ? current : (current = [instructionsAdapter, historyAdapter, ...adapters])),
    })
  }

  get providers(): ProviderRegistry {
    return this.extensions.providers
  }
  get sessions(): Stores['sessions'] {
    return this.extensions.stores.sessions ?? this.#defaultStores.sessions
  }
  get runs(): Stores['runs'] {
    return this.extensions.stores.runs ?? this.#defaultStores.runs
  }
  get executions(): Stores['executions'] {
    return this.extensions.stores.executions ?? this.#defaultStores.executions
  }
  get snapshots(): Stores['snapshots'] {
    return this.extensions.stores.snapshots ?? this.#defaultStores.snapshots
  }
  get embeddings(): Stores['embeddings'] {
    return this.extensions.stores.embeddings ?? this.#defaultStores.embeddings
  }
  get artifacts(): Stores['artifacts'] {
    return this.extensions.stores.artifacts ?? this.#defaultStores.artifacts
  }
  get sessionGate(): SessionGate {
    return this.extensions.gate ?? this.#defaultGate
  }
  /** The broadcast bus behind `subscribe()`. */
  get events(): EventBus {
    return this.extensions.events ?? this.#defaultBus
  }
  /** Where `enqueue()` puts runs for `work()`. */
  get queue(): RunQueue {
    return this.extensions.queue ?? this.#defaultQueue
  }
  get compaction(): CompactionService {
    const strategy = this.extensions.compaction ?? truncateCompaction()
    if (!this.#compaction || this.#compaction.strategy.name !== strategy.name) this.#compaction = new CompactionService(strategy, compactionBreaker(this.policy))
    return this.#compaction
  }

  #stores(): Stores {
    return {
      sessions: this.sessions,
      runs: this.runs,
      executions: this.executions,
      snapshots: this.snapshots,
      embeddings: this.embeddings,
      artifacts: this.artifacts,
    }
  }

  /** Runs an agent to completion (or suspension for approval). Admission errors reject before anything is written. */
  run(request: RunRequest): Promise<RunOutput> {
    return this.#withRuntimeStore(request?.runtime, (runtime) => this.#start(request, runtime, undefined, undefined))
  }

  /** Streams every event of the run, losslessly and with back-pressure. Stopping early cancels the run. */
  stream(request: RunRequest): RunStream {
    const channel = new EventChannel<AgentEvent>()
    // The run's own controller, created here so that a consumer who stops reading aborts the run directly (one
    // AbortController per run instead of two linked ones: each costs about 2 µs on Node 20).
    const controller = new AbortController()
    channel.onAbandon(() => controller.abort(new AbortedError('[spindle/core] the stream consumer stopped reading; the run was cancelled')))
    const result = this.#withRuntimeStore(request?.runtime, (runtime) => this.#start(request, runtime, channel, controller)).then(
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
    return { result, [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator]() }
  }

  /** Continues a crashed or suspended run from its last snapshot; a finished run returns its output. */
  async resume(runId: string, options: ResumeOptions = {}): Promise<RunOutput> {
    return this.#withRuntimeStore(options.runtime, (runtime) => this.#resume(runId, options, runtime, false))
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
    // The tail of this run's queue never rejects: one failed decision does not fail the ones behind it.
    const queued = this.#decisions.get(runId)
    const decided = queued ? queued.then(() => this.#decide(runId, callId, decision)) : this.#decide(runId, callId, decision)
    const tail = decided.then(noop, noop)
    this.#decisions.set(runId, tail)
    void tail.then(() => {
      if (this.#decisions.get(runId) === tail) this.#decisions.delete(runId)
    })
    return decided
  }

  async #decide(runId: string, callId: string, decision: ApprovalDecision | boolean): Promise<void> {
    const { approved, reason } = typeof decision === 'boolean' ? { approved: decision, reason: undefined } : decision
    await this.extensions.ready()
    // Checked before waiting for the gate too: a run that is not suspended fails at once.
    const { sessionId } = await this.#suspendedRun(runId)
    const lease = await this.sessionGate.acquire(sessionId, {
      owner: `approve:${runId}`,
      // A decision is a short write, queued even when runs on contention are rejected.
      onContention: 'queue',
      maxQueue: this.policy.maxQueue,
      queueTimeoutMs: this.policy.queueTimeoutMs,
    })
    try {
      // Read again under the gate: a decision, resume or cancel made meanwhile, here or elsewhere, is seen.
      await this.#suspendedRun(runId)
      const snapshot = await this.snapshots.latest(runId)
      const state = snapshot?.state as unknown as RunState | undefined
      const call = state?.pending.find((pending) => pending.callId === callId)
      if (!snapshot || !state || !call) {
        const waiting = state?.pending.filter((pending) => pending.approval === 'required').map((pending) => pending.callId) ?? []
        throw new NotFoundError(`[spindle/core] run "${runId}" has no pending call "${callId}". Calls awaiting approval: ${waiting.join(', ') || '(none)'}`)
      }
      const decision = approved ? 'approved' : 'denied'
      if (call.approval === undefined) {
        throw new ConfigurationError(`[spindle/core] call "${callId}" (${call.toolName}) of run "${runId}" does not need approval; only calls awaiting a decision can be approved or denied`)
      }
      // The same decision again (a double click, a retried request) changes nothing; another one cannot replace it.
      if (call.approval === decision) return
      if (call.approval !== 'required') {
        throw new DuplicateError(`[spindle/core] call "${callId}" (${call.toolName}) of run "${runId}" was already ${call.approval}; a decision cannot be changed`)
      }
      call.approval = decision
      if (reason) call.reason = reason
      await this.snapshots.save({ ...snapshot, state: state as never, createdAt: Date.now() })
    } finally {
      await lease.release()
    }
  }

  /**
   * Refuses to start or continue a run after another one left unfinished: the session's last entry belongs to a run
   * still `running` (its process died; its lease may have expired before its job's), `interrupted`, or `suspended`
   * (awaiting approval). Going on anyway would interleave the two runs' messages and leave the other run's
   * unanswered tool calls before this run's messages (which the providers reject). One read of a run record, when
   * the session's last entry belongs to another run.
   */
  async #refuseOverUnfinished(window: ContextWindow, sessionId: string, runId: string): Promise<void> {
    const owner = window.entries[window.entries.length - 1]?.runId
    if (owner === undefined || owner === runId) return
    const previous = await this.runs.getRun(owner)
    if (previous?.status === 'suspended') {
      throw new SessionBusyError(
        `[spindle/core] session "${sessionId}" has run "${owner}" awaiting approval of its tool calls; approve() them and resume("${owner}"), or cancel("${owner}"), first. A new run now would leave those calls unanswered before its own messages.`,
        { details: { sessionId, runId: owner, status: previous.status } },
      )
    }
    if (previous?.status !== 'running' && previous?.status !== 'interrupted') return
    throw new SessionBusyError(
      `[spindle/core] session "${sessionId}" has an unfinished run "${owner}" (${previous.status}: stopped mid-run by a crash or a shutdown); resume("${owner}") or cancel("${owner}") it first. A new run now would interleave with it.`,
      { details: { sessionId, runId: owner, status: previous.status } },
    )
  }

  async #suspendedRun(runId: string): Promise<RunRecord> {
    const run = await this.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/core] no run "${runId}"`)
    if (run.status !== 'suspended') throw new ConfigurationError(`[spindle/core] run "${runId}" is ${run.status}, not awaiting approval`)
    return run
  }

  /** Cancels a run: an active one is aborted (finish reason `cancelled`); a suspended one is closed. */
  async cancel(runId: string): Promise<boolean> {
    const active = this.#active.get(runId)
    if (active) {
      active.controller.abort(new AbortedError(`[spindle/core] run "${runId}" was cancelled`))
      await active.promise.catch(() => {})
      return true
    }
    const run = await this.runs.getRun(runId)
    if (!run || (run.status !== 'suspended' && run.status !== 'interrupted')) return false
    await this.#resume(runId, {}, undefined, true)
    return true
  }

  /**
   * Admits a request and queues its run; returns at once with the run id (the same id for the same
   * `idempotencyKey` on a session). Workers execute it with `work()`.
   */
  async enqueue(request: RunRequest): Promise<{ runId: string; sessionId: string }> {
    await this.extensions.ready()
    // `request?.`: a request that is not even an object gets its AdmissionError from the schema below.
    const policy = mergePolicy(this.policy, request?.agent?.policy)
    const admitted = admitRequestNow(request, policy, this.#options.admission ?? noHooks)
    const input = admitted instanceof Promise ? await admitted : admitted
    const model = this.#resolveModel(request.model ?? request.agent.model)
    const sessionId = request.sessionId ?? `ses_${timeOrderedId()}`
    if (request.idempotencyKey) {
      const existing = await this.#runWithKey(sessionId, request.idempotencyKey, policy)
      if (existing) return { runId: existing.id, sessionId }
    }
    const runId = `run_${timeOrderedId()}`
    const winner = await this.#createRecord(request, input, model, sessionId, runId, 'queued')
    if (typeof winner === 'object') return { runId: winner.id, sessionId }
    this.#agents.set(runId, request.agent)
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
        const output = await this.#withRuntimeStore(undefined, (runtime) => this.#resume(job.runId, { agent }, runtime, false, run))
        // The run ended but the store refused its last write (a database outage at that moment): its record still
        // says `running`. Failing the job makes the queue run it again later, and that resume records the end.
        if (endNotRecorded(output)) {
          throw new StoreError(`[spindle/core] run "${job.runId}" ended (${output.finishReason}) but its run record could not be updated; the job fails so that the queue retries it and resume() records the end`, {
            details: { runId: job.runId, finishReason: output.finishReason },
          })
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
    return recoverRuns(options, {
      stale: async () => {
        const now = Date.now()
        // Queued runs are recovered too when the queue lived in this process's memory (it died with it).
        const statuses: RunRecord['status'][] = this.extensions.queue ? ['running'] : ['running', 'queued']
        const runs = await this.runs.listRuns({ status: statuses, limit: 1000 })
        return runs.filter((run) => !this.#active.has(run.id) && (leaseIsFree(run.lease, now) || run.lease?.owner === this.ownerId))
      },
      claim: (run, patch) => this.#claim(run, patch),
      resume: (run, agent, onClaimed) => {
        this.#onClaimed.set(run.id, onClaimed)
        return this.resume(run.id, { agent }).finally(() => this.#onClaimed.delete(run.id))
      },
    })
  }

  /**
   * The request's store is cloned for the call and its cleanups run when the call ends, however it ends; a
   * failing cleanup rejects the call (cleanup errors are never silent). Runtime resources registered on the
   * extensions are in scope for `runtime.load()` during the run.
   */
  async #withRuntimeStore<T>(runtime: RuntimeStore<any> | undefined, body: (scoped: RuntimeStore | undefined) => Promise<T>): Promise<T> {
    const resources = this.extensions.runtimeResources
    if (!runtime) return resources ? RuntimeStore.runWithResources(resources, () => body(undefined)) : body(undefined)
    // Checked here too: the store is snapshotted before the request's admission runs.
    const wrong = invalidRuntimeStore(runtime)
    if (wrong) throw new AdmissionError(`[spindle/core] invalid run request: ${wrong}`)
    const scoped = runtime.snapshot() as RuntimeStore
    let result: T
    try {
      result = await scoped.run(() => body(scoped), { resources })
    } catch (error) {
      await scoped.dispose().catch(() => {})
      throw error
    }
    await scoped.dispose()
    return result
  }

  /** `controller` is the stream's (aborted when its consumer stops reading); `run()` leaves it to this method. */
  async #start(
    request: RunRequest,
    runtime: RuntimeStore | undefined,
    channel: EventChannel<AgentEvent> | undefined,
    controller = new AbortController(),
  ): Promise<RunOutput> {
    await this.extensions.ready()
    // `request?.`: a request that is not even an object gets its AdmissionError from the schema below.
    const policy = mergePolicy(this.policy, request?.agent?.policy)
    const admitted = admitRequestNow(request, policy, this.#options.admission ?? noHooks)
    const input = admitted instanceof Promise ? await admitted : admitted
    const sessionId = request.sessionId ?? `ses_${timeOrderedId()}`
    if (!request.idempotencyKey) return this.#startAdmitted(request, runtime, channel, controller, policy, input, sessionId)
    // A duplicate submitted while the first is still starting (a double click) shares its outcome: it neither waits
    // for the session behind it nor is refused as contention.
    const flightKey = JSON.stringify([sessionId, request.idempotencyKey])
    const inFlight = this.#inFlight.get(flightKey)
    if (inFlight) return this.#replayInto(channel, inFlight)
    const starting = (async () => {
      const existing = await this.#runWithKey(sessionId, request.idempotencyKey!, policy)
      if (existing) return this.#replayInto(channel, this.#existing(existing, request.agent))
      return this.#startAdmitted(request, runtime, channel, controller, policy, input, sessionId)
    })()
    this.#inFlight.set(flightKey, starting)
    try {
      return await starting
    } finally {
      this.#inFlight.delete(flightKey)
    }
  }

  /**
   * A duplicate submit's stream gets the run it shares: once that run has ended (or suspended), its whole event log,
   * in order, so that a `stream()` consumer sees every event and exactly one terminal event, as the first did.
   */
  async #replayInto(channel: EventChannel<AgentEvent> | undefined, outcome: Promise<RunOutput>): Promise<RunOutput> {
    const output = await outcome
    if (channel === undefined) return output
    for (let after = 0; ; ) {
      const page = await this.runs.listEvents(output.runId, { after, limit: 1_000 })
      for (const event of page) channel.push(event)
      if (page.length < 1_000) return output
      after = page[page.length - 1]!.seq
    }
  }

  /**
   * The session's run with this idempotency key, while the key is younger than `policy.idempotencyTtlMs`. An older
   * key is released from its run, so the new submit creates a run of its own (the store's unique key would
   * otherwise hand back the old run for ever).
   */
  async #runWithKey(sessionId: string, key: string, policy: RuntimePolicy): Promise<RunRecord | undefined> {
    const existing = await this.runs.findRunByIdempotencyKey(sessionId, key)
    if (existing === undefined || Date.now() - existing.createdAt < policy.idempotencyTtlMs) return existing
    await this.runs.updateRun(existing.id, { idempotencyKey: undefined })
    return undefined
  }

  async #startAdmitted(
    request: RunRequest,
    runtime: RuntimeStore | undefined,
    channel: EventChannel<AgentEvent> | undefined,
    controller: AbortController,
    policy: RuntimePolicy,
    input: ModelMessage[],
    sessionId: string,
  ): Promise<RunOutput> {
    const model = this.#resolveModel(request.model ?? request.agent.model)
    const scope = this.#scope(request.agent.tools)
    const runId = `run_${timeOrderedId()}`
    const unlink = linkSignals(controller, [request.signal])
    const timer = setTimeout(() => controller.abort(new TimeoutError(`[spindle/core] run exceeded policy.runTimeoutMs (${policy.runTimeoutMs} ms)`)), policy.runTimeoutMs)
    timer.unref?.()
    let lease: SessionLease | undefined
    const gateStart = performance.now()
    try {
      lease = await this.sessionGate.acquire(sessionId, {
        owner: runId,
        onContention: policy.onContention,
        maxQueue: policy.maxQueue,
        queueTimeoutMs: policy.queueTimeoutMs,
        signal: controller.signal,
      })
      const gateWaitMs = performance.now() - gateStart
      // A session named by the caller may hold a run a crash left unfinished: refused before anything is written.
      if (request.sessionId !== undefined) await this.#refuseOverUnfinished(await this.#window(sessionId), sessionId, runId)
      const winner = await this.#createRecord(request, input, model, sessionId, runId, 'running', {
        startedAt: Date.now(),
        lease: { owner: this.ownerId, expiresAt: Date.now() + policy.leaseMs },
      })
      if (typeof winner === 'object') {
        // Two identical submits raced past the idempotency check: return the one that won.
        await lease.release()
        lease = undefined
        return this.#replayInto(channel, this.#existing(winner))
      }
      this.#agents.set(runId, request.agent)
      // A session this run created has nothing to read yet (and the run holds its lease).
      const window = winner ? this.#emptyWindow(sessionId) : await this.#window(sessionId)
      const execution = this.#execution(policy, {
        state: initialRunState(runId, sessionId, window.lastSeq + 1),
        agent: request.agent,
        model,
        scope,
        window,
        lease,
        runtime,
        channel,
        signal: controller.signal,
        parentRunId: request.parentRunId,
      })
      return await this.#track(runId, controller, lease, policy, () =>
        execution.execute(async () => {
          execution.emit({ type: 'run.started', agent: request.agent.name, modelId: `${model.provider}:${model.modelId}`, input: input as never, gateWaitMs })
          await execution.appendInput(input)
          await execution.checkpoint()
        }),
      )
    } finally {
      clearTimeout(timer)
      unlink()
      await lease?.release()
    }
  }

  /** `known` is the run's record when the caller has just read it (a worker's job). */
  async #resume(runId: string, options: ResumeOptions, runtime: RuntimeStore | undefined, cancelOnly: boolean, known?: RunRecord): Promise<RunOutput> {
    await this.extensions.ready()
    const active = this.#active.get(runId)
    if (active) return active.promise
    const run = known ?? (await this.runs.getRun(runId))
    if (!run) throw new NotFoundError(`[spindle/core] no run "${runId}" to resume`)
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') return this.#existing(run)
    if (run.status === 'running' && run.lease && run.lease.owner !== this.ownerId && !leaseIsFree(run.lease)) {
      throw new SessionBusyError(`[spindle/core] run "${runId}" is held by ${run.lease.owner} until ${new Date(run.lease.expiresAt).toISOString()}; resume it after its lease expires`)
    }
    let agent = options.agent ?? this.#agents.get(runId) ?? (cancelOnly ? this.#agentToCancel(run) : this.#agentFromRecord(run))
    let policy = mergePolicy(this.policy, agent.policy)
    let model = this.#resolveModel(agent.model)
    let scope = this.#scope(agent.tools)
    const controller = new AbortController()
    const unlink = linkSignals(controller, [options.signal])
    if (cancelOnly) controller.abort(new AbortedError(`[spindle/core] run "${runId}" was cancelled`))
    const timer = setTimeout(() => controller.abort(new TimeoutError(`[spindle/core] run exceeded policy.runTimeoutMs (${policy.runTimeoutMs} ms)`)), policy.runTimeoutMs)
    timer.unref?.()
    let lease: SessionLease | undefined
    const gateStart = performance.now()
    try {
      lease = await this.sessionGate.acquire(run.sessionId, {
        owner: runId,
        onContention: policy.onContention,
        maxQueue: policy.maxQueue,
        queueTimeoutMs: policy.queueTimeoutMs,
      })
      const gateWaitMs = performance.now() - gateStart
      const snapshot = await this.snapshots.latest(runId)
      const window = await this.#window(run.sessionId)
      // Not after another run a crash left unfinished (the queue retries the job later): a queued run starts here, and
      // a run whose process died before its input reached the session may find another run appended after it since.
      if (!cancelOnly) await this.#refuseOverUnfinished(window, run.sessionId, runId)
      const state: RunState = snapshot ? (structuredClone(snapshot.state) as unknown as RunState) : initialRunState(runId, run.sessionId, 1)
      if (!snapshot) state.lastSeq = 0
      // Events are flushed before each snapshot, so only the snapshot's own `snapshot.saved` may be missing (a
      // crash right after the save): its seq is then taken again and the log stays gap-free.
      // A handoff moved the run to another agent: continue with it.
      if (state.agent && state.agent !== agent.name) {
        const target = findHandoffTarget(agent, state.agent)
        if (!target) throw new ConfigurationError(`[spindle/core] run "${runId}" was handed off to agent "${state.agent}", which is not reachable from "${agent.name}" through handoff tools; pass it: resume(runId, { agent })`)
        agent = target
        policy = mergePolicy(this.policy, agent.policy)
        model = this.#resolveModel(agent.model)
        scope = this.#scope(agent.tools)
      }
      const logged = await this.runs.listEvents(runId, { after: Math.max(0, state.eventSeq - 1) })
      // Above every number the crashed attempt may have delivered live; the ones its log lacks are declared discarded.
      const discarded = continueNumbering(state, logged)
      const snapshotPhase = state.phase
      const end = logged[logged.length - 1]
      if (end && (end.type === 'run.failed' || (end.type === 'run.finished' && end.finishReason !== 'awaiting_approval'))) {
        // The process died after logging the run's end, before recording it on the run: record it now, claimed like a
        // resume (another process recording or resuming it at the same moment wins, and this one writes nothing).
        const { finishReason } = end
        const ended = await this.#claim(run, {
          status: runStatusOf(finishReason),
          finishReason,
          step: state.step,
          usage: state.usage,
          finishedAt: end.timestamp,
          lease: undefined,
          ...(end.type === 'run.failed' ? { error: end.error } : {}),
        })
        return await outputFromStore(ended, this.#stores())
      }
      // The claim, before anything is written for the run: a compare-and-set against the record read above, so that
      // of two processes resuming it at once (both past the lease check, each with a gate of its own) one continues.
      await this.#claim(run, {
        status: 'running',
        lease: { owner: this.ownerId, expiresAt: Date.now() + policy.leaseMs },
        ...(run.status === 'queued' ? { startedAt: Date.now() } : {}),
      })
      this.#onClaimed.get(runId)?.()
      this.#agents.set(runId, agent)
      const previous = await this.sessions.listEntries(run.sessionId, { after: state.firstSeq - 1, before: state.lastSeq + 1 })
      const messages = previous.filter((entry) => entry.runId === runId && entry.kind === 'message').map((entry) => (entry as { message: ModelMessage }).message)
      // The snapshot holds the answer so far redacted: the run continues from the text the model wrote.
      if (state.text) state.text = answerText(messages) || state.text
      const execution = this.#execution(policy, {
        state,
        agent,
        model,
        scope,
        window,
        lease,
        runtime,
        channel: undefined,
        signal: controller.signal,
        messages,
      })
      execution.seqs.restore(snapshot)
      return await this.#track(runId, controller, lease, policy, () =>
        execution.execute(async () => {
          // A run killed before anything reached its log: its start is logged now.
          // A queued run starts here; a run killed before anything reached its log has its start logged now.
          if (state.eventSeq === 0) {
            const queueWaitMs = run.status === 'queued' ? Math.max(0, Date.now() - run.createdAt) : undefined
            execution.emit({ type: 'run.started', agent: agent.name, modelId: `${model.provider}:${model.modelId}`, input: run.request.input ?? null, gateWaitMs, queueWaitMs })
          }
          if (run.status !== 'queued') execution.emit({ type: 'run.resumed', fromStep: state.step, agent: agent.name, modelId: `${model.provider}:${model.modelId}`, gateWaitMs, ...(discarded ? { discarded } : {}) })
          const entries = window.entries.filter((entry) => entry.seq > state.lastSeq)
          if (!snapshot && !entries.some((entry) => entry.runId === runId)) {
            // The process died between creating the run and appending its input: append it now (not to cancel it:
            // the session never saw this run, and another one may be unfinished there).
            if (!cancelOnly) {
              await execution.appendInput((run.request.input ?? []) as unknown as ModelMessage[])
              await execution.checkpoint()
            }
          } else {
            await execution.replay(entries)
            // The step the crash interrupted was never logged (a snapshot in the tools phase logged its calls).
            if (snapshotPhase !== 'tools') announceInterruptedStep(execution)
          }
        }),
      )
    } finally {
      clearTimeout(timer)
      unlink()
      await lease?.release()
    }
  }

  /**
   * Moves a run to `patch` if its record still has the status and lease of `run` (read before): with the store's
   * `claimRun`, atomically; a store without it gets a plain `updateRun` (no protection against another process).
   * A lost claim throws `SessionBusyError` (details `{ runId, claimed: true }`), having written nothing.
   */
  async #claim(run: RunRecord, patch: RunPatch): Promise<RunRecord> {
    const { claimRun } = this.runs
    if (claimRun === undefined) return await this.runs.updateRun(run.id, patch)
    const claimed = await claimRun.call(this.runs, run.id, { status: run.status, lease: run.lease }, patch)
    if (claimed !== undefined) return claimed
    throw new SessionBusyError(
      `[spindle/core] another process resumed run "${run.id}" meanwhile (or interrupted it): its record is no longer ${run.status}${run.lease ? ` under ${run.lease.owner}'s lease` : ' without a lease'}, as read before the claim. Nothing was written here; read it again with getRun("${run.id}"), or resume it later to get its output.`,
      { details: { runId: run.id, sessionId: run.sessionId, claimed: true } },
    )
  }

  #execution(policy: RuntimePolicy, init: RunExecutionStart): RunExecution {
    return new RunExecution(
      runExecutionDeps({
        stores: this.#stores(),
        bus: this.events,
        policy,
        tools: this.tools,
        context: this.context,
        compaction: this.compaction,
        ownerId: this.ownerId,
        agentRuntime: this,
        resolveAgent: (target) => ({ model: this.#resolveModel(target.model), scope: this.#scope(target.tools), policy: mergePolicy(this.policy, target.policy) }),
        observers: this.extensions.observers,
        redactor: this.extensions.redactor,
        prices: this.extensions.prices,
      }),
      runExecutionInit(init),
    )
  }

  /** Registers the run as active (for cancel / duplicate resume) and renews its lease while it runs. */
  async #track(runId: string, controller: AbortController, lease: SessionLease, policy: RuntimePolicy, body: () => Promise<RunOutput>): Promise<RunOutput> {
    // A lease that cannot be lost (the in-process gate's) is not listened to.
    const onLeaseLost =
      lease.signal === neverLost
        ? undefined
        : () => controller.abort(new SpindleError('lease_lost', `[spindle/core] the session lease of run "${runId}" was lost: another holder continues the run`))
    if (onLeaseLost) lease.signal.addEventListener('abort', onLeaseLost, { once: true })
    const heartbeat = setInterval(() => {
      this.runs.updateRun(runId, { lease: { owner: this.ownerId, expiresAt: Date.now() + policy.leaseMs } }).catch(() => {})
    }, Math.max(1_000, Math.floor(policy.leaseMs / 3)))
    heartbeat.unref?.()
    const promise = body()
    this.#active.set(runId, { controller, promise })
    try {
      const output = await promise
      if (output.finishReason !== 'awaiting_approval') this.#agents.delete(runId)
      return output
    } finally {
      clearInterval(heartbeat)
      if (onLeaseLost) lease.signal.removeEventListener('abort', onLeaseLost)
      this.#active.delete(runId)
    }
  }

  /** The session's context window: cached between runs, refreshed with only the entries appended since. */
  /** The window of a session created just now: empty, cached like any other. */
  #emptyWindow(sessionId: string): ContextWindow {
    const window = new ContextWindow(this.context.tokenizer)
    this.#cacheWindow(sessionId, window)
    return window
  }

  #cacheWindow(sessionId: string, window: ContextWindow): void {
    this.#windows.delete(sessionId)
    this.#windows.set(sessionId, window)
    const limit = this.#options.windowCacheSize ?? 256
    while (this.#windows.size > limit) this.#windows.delete(this.#windows.keys().next().value!)
  }

  async #window(sessionId: string): Promise<ContextWindow> {
    const session = await this.sessions.getSession(sessionId)
    // No session yet (a run about to create it): nothing to read.
    if (session === undefined) return new ContextWindow(this.context.tokenizer)
    const { lastSeq } = session
    let window = this.#windows.get(sessionId)
    if (window && window.lastSeq > lastSeq) window = undefined
    if (!window) {
      window = new ContextWindow(this.context.tokenizer)
      const [compaction] = await this.sessions.listEntries(sessionId, { kind: 'compaction', order: 'desc', limit: 1 })
      const after = compaction && compaction.kind === 'compaction' ? compaction.compaction.throughSeq : 0
      window.add(await this.sessions.listEntries(sessionId, { after }))
    } else if (window.lastSeq < lastSeq) {
      window.add(await this.sessions.listEntries(sessionId, { after: window.lastSeq }))
    }
    this.#cacheWindow(sessionId, window)
    return window
  }

  /**
   * Creates the session when needed and the run record. Returns the run that won an idempotency-key race, else
   * whether this call created the session (then it has no entries yet).
   */
  async #createRecord(
    request: RunRequest,
    input: ModelMessage[],
    model: LanguageModel,
    sessionId: string,
    runId: string,
    status: 'queued' | 'running',
    start?: { startedAt: number; lease: { owner: string; expiresAt: number } },
  ): Promise<RunRecord | boolean> {
    let createdSession = false
    if (!(await this.sessions.getSession(sessionId))) {
      createdSession = await this.sessions.createSession({ id: sessionId, resourceId: request.resourceId, metadata: request.metadata ?? {} }).then(
        () => true,
        (error: unknown) => {
          // Another process created it in between: fine.
          if (!(SpindleError.isInstance(error) && error.code === 'duplicate')) throw error
          return false
        },
      )
    }
    let created: RunRecord
    try {
      created = await this.runs.createRun({
        id: runId,
        sessionId,
        status,
        idempotencyKey: request.idempotencyKey,
        metadata: request.metadata ?? {},
        request: serializeRequest(request, input, model),
        ...start,
      })
    } catch (error) {
      if (request.idempotencyKey && SpindleError.isInstance(error) && error.code === 'duplicate') {
        const winner = await this.runs.findRunByIdempotencyKey(sessionId, request.idempotencyKey)
        if (winner) return winner
      }
      throw error
    }
    // A store that predates NewRun's startedAt and lease ignored them: the run is started with an update instead.
    if (start && created.lease?.owner !== start.lease.owner) await this.runs.updateRun(runId, start)
    return createdSession
  }

  /** A run's tool scope: its tools over the registry, plus `read_artifact` when the run has tools and none is defined. */
  #scope(tools: AgentSpec['tools']): ToolScope {
    const entries = toolEntries(tools)
    const registry = this.extensions.tools
    if (this.#readArtifact && (entries.length > 0 || registry.size > 0) && !registry.get('read_artifact') && !entries.some(([name]) => name === 'read_artifact')) {
      // Truncated tool output names this tool: the model can read the whole output back by ranges.
      entries.push(['read_artifact', this.#readArtifact])
    }
    return this.tools.scope(entries)
  }

  #resolveModel(reference: ModelReference): LanguageModel {
    return this.providers.languageModel(reference as Parameters<ProviderRegistry['languageModel']>[0])
  }

  /** Rebuilds an agent after a restart from the run record: its model id and tools from the registries. */
  /**
   * The agent of a run being cancelled: its own when it can be rebuilt, else a stand-in. A cancel never calls the
   * model or a tool (it closes the open calls with error results), so a process without the run's model or tools
   * registered can still cancel it.
   */
  #agentToCancel(run: RunRecord): AgentSpec {
    try {
      return this.#agentFromRecord(run)
    } catch {
      const name = (run.request.agent as { name?: string } | undefined)?.name ?? 'agent'
      return { name, model: cancelledModel(run.id) }
    }
  }

  #agentFromRecord(run: RunRecord): AgentSpec {
    const agent = (run.request.agent ?? {}) as { name?: string; instructions?: string; model?: string; tools?: string[] }
    const tools: Record<string, Tool> = {}
    const missing: string[] = []
    for (const name of agent.tools ?? []) {
      const tool = this.extensions.tools.get(name)
      if (tool) tools[name] = tool
      else missing.push(name)
    }
    if (missing.length || !agent.model || !this.providers.has(agent.model)) {
      throw new ConfigurationError(
        `[spindle/core] cannot rebuild agent "${agent.name}" of run "${run.id}" after a restart: ${missing.length ? `tools ${missing.join(', ')} are not in the tool registry` : `model "${agent.model}" is not in the provider registry`}. Pass it again: runtime.resume(runId, { agent })`,
      )
    }
    return { name: agent.name ?? 'agent', instructions: agent.instructions, model: agent.model, tools }
  }

  /** The output of a run that already exists (finished here or elsewhere, or still running). */
  async #existing(run: RunRecord, agent?: AgentSpec): Promise<RunOutput> {
    const active = this.#active.get(run.id)
    if (active) return active.promise
    let current: RunRecord | undefined = run
    let delay = 25
    while (current && (current.status === 'running' || current.status === 'queued')) {
      // Left running by a process that died (its lease expired): nobody will finish it unless this call does.
      if (current.status === 'running' && leaseIsFree(current.lease)) return this.resume(current.id, agent ? { agent } : {})
      await new Promise((resolve) => setTimeout(resolve, delay))
      delay = Math.min(1_000, delay * 2)
      const local = this.#active.get(run.id)
      if (local) return local.promise
      current = await this.runs.getRun(run.id)
    }
    if (!current) throw new NotFoundError(`[spindle/core] run "${run.id}" disappeared`)
    return outputFromStore(current, this.#stores())
  }
}

function serializeRequest(request: RunRequest, input: ModelMessage[], model: LanguageModel): JsonObject {
  return {
    input: input as never,
    agent: {
      name: request.agent.name,
      ...(request.agent.instructions ? { instructions: request.agent.instructions } : {}),
      model: typeof request.agent.model === 'string' ? request.agent.model : `${model.provider}:${model.modelId}`,
      tools: toolEntries(request.agent.tools).map(([name]) => name),
    },
    ...(request.resourceId ? { resourceId: request.resourceId } : {}),
    ...(request.parentRunId ? { parentRunId: request.parentRunId } : {}),
  }
}

function linkSignals(controller: AbortController, signals: Array<AbortSignal | undefined>): () => void {
  const cleanups: Array<() => void> = []
  for (const signal of signals) {
    if (!signal) continue
    if (signal.aborted) {
      controller.abort(signal.reason)
      continue
    }
    const onAbort = () => controller.abort(signal.reason instanceof Error ? signal.reason : new AbortedError())
    signal.addEventListener('abort', onAbort, { once: true })
    cleanups.push(() => signal.removeEventListener('abort', onAbort))
  }
  return () => {
    for (const cleanup of cleanups) cleanup()
  }
}

/** Whether `list` is the built-in adapters followed by exactly `added`, in order. */
function withBuiltins(list: readonly ContextAdapter[], added: readonly ContextAdapter[]): boolean {
  if (list.length !== added.length + 2) return false
  for (let index = 0; index < added.length; index++) if (list[index + 2] !== added[index]) return false
  return true
}

const noHooks: readonly AdmissionHook[] = []

function noop(): void {}

/** The model of a run resumed only to be cancelled: never called (the run is aborted before its first step). */
function cancelledModel(runId: string): LanguageModel {
  return {
    specificationVersion: 'v1',
    provider: 'spindle',
    modelId: 'cancelled',
    capabilities: { contextWindow: 1_000_000, maxOutputTokens: 1, tools: true, parallelTools: true, reasoning: false, structuredOutput: false },
    stream() {
      throw new AbortedError(`[spindle/core] run "${runId}" was cancelled`)
    },
  }
}

// One execution of a run (a start or a resume): the loop that applies `transition` and performs its actions —
// context → compaction → model → persist → tools (journaled) → persist → snapshot → policy.
import { AbortedError, ConfigurationError, ContextOverflowError, TimeoutError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { CompactionService } from '../compaction/compaction-service.js'
import type { ContextWindow } from '../context/context-window.js'
import { countMessagesTokens } from '../context/tokenizer.js'
import type { BuiltContext, ContextPipeline } from '../context/context-pipeline.js'
import type { EventChannel } from '../events/event-channel.js'
import { EventBuffer } from './event-buffer.js'
import { SeqReservation } from './seq-reservation.js'
import { listedForApproval, type RuntimePolicy } from '../policy/runtime-policy.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { EventBus } from '../spec/event-bus.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { LanguageModel, ModelResponseInfo } from '../spec/language-model.js'
import type { ModelMessage, ToolResultPart, Usage } from '../spec/messages.js'
import type { FinishReason, RunPatch } from '../spec/run-store.js'
import { runStatusOf } from '../spec/run-status.js'
import type { SessionLease } from '../spec/session-gate.js'
import type { SessionEntry, SessionEntryInput } from '../spec/session-store.js'
import type { Stores } from '../spec/stores.js'
import type { ExecuteCallsResult, ToolCallOutcome, ToolRuntime } from '../tools/tool-runtime.js'
import type { ToolScope } from '../tools/tool-scope.js'
import type { NestedRunHost } from '../tools/tool.js'
import { callModel, type ModelStepOptions, type ModelStepResult, untilAborted } from './model-step.js'
import type { AgentSpec, RunOutput } from './run-request.js'
import { copyState, initialRunState, type PendingCall, type RunState, withState } from './run-state.js'
import { type Next, type Outcome, transition, type TransitionLimits } from './transition.js'
import { hashArgs } from './hash-args.js'
import { runErrorOf } from './run-error-of.js'
import { compactionFailed } from '../compaction/compaction-breaker.js'
import { StepWriter } from './step-writer.js'
import { sizedArray } from '../util/sized-array.js'
import { capJournaledOutput } from '../tools/tool-output-cap.js'
import { findStoreBatch, type StoreWrite, type StoreWriteResult } from '../spec/store-batch.js'
import type { ExecutionOutcome, NewExecution } from '../spec/execution-store.js'
import type { ToolJournal } from '../tools/tool-runtime.js'
import { boundExecutionOutcome } from '../tools/journal-text.js'
import { notifyObservers, type RuntimeObserver } from '../observability/runtime-observer.js'
import type { Redactor } from '../observability/redactor.js'
import { StreamRedaction } from '../observability/stream-redaction.js'
import { costOf, findModelPrice, type ModelPrice, type PriceTable } from '../observability/price-table.js'

export interface RunExecutionDeps {
  stores: Stores
  bus: EventBus
  policy: RuntimePolicy
  tools: ToolRuntime
  context: ContextPipeline
  compaction: CompactionService
  ownerId: string
  agentRuntime: unknown
  /** Resolves a handoff target's model and tool scope. */
  resolveAgent?(agent: AgentSpec): { model: LanguageModel; scope: ToolScope; policy?: RuntimePolicy }
  /** Observability (extensions.observers / redactor / prices): synchronous observers, secret redaction, model prices. */
  observers?: readonly RuntimeObserver[]
  redactor?: Redactor | false
  prices?: PriceTable
}

export interface RunExecutionInit {
  state: RunState
  agentName: string
  instructions: string | undefined
  model: LanguageModel
  scope: ToolScope
  window: ContextWindow
  lease: SessionLease
  runtime: RuntimeStore | undefined
  channel: EventChannel<AgentEvent> | undefined
  signal: AbortSignal
  /** Messages already appended by this execution before the loop (the user input). */
  messages: ModelMessage[]
  parentRunId?: string
}

const continuationPrompt = 'Continue exactly where your previous answer stopped, without repeating anything.'

export class RunExecution {
  state: RunState
  readonly #deps: RunExecutionDeps
  readonly #init: RunExecutionInit
  readonly #limits: TransitionLimits
  /** The events since the last commit. */
  readonly #events: EventBuffer
  readonly messages: ModelMessage[]
  readonly #writer: StepWriter
  /**
   * Journal keys started and not finished in the current tool step: slots `0 … #runningCount - 1` of an array
   * kept from step to step (a Set's delete and clear rebuilt its table: about 130 bytes a step).
   */
  readonly #running: string[] = []
  #runningCount = 0
  #seq: number
  /** Event numbers reserved durably before live delivery (a crash never lets a resume reuse one). */
  readonly seqs: SeqReservation
  #terminal = false

  constructor(deps: RunExecutionDeps, init: RunExecutionInit) {
    this.#deps = deps
    this.#init = init
    this.state = init.state
    this.#seq = init.state.eventSeq
    this.#events = new EventBuffer(init.state.runId, init.state.sessionId, init.parentRunId || undefined)
    this.seqs = new SeqReservation(init.state.reservedSeq ?? 0, this.#deliverNow.bind(this), (snapshot) => this.#writer.commit([{ type: 'snapshot.save', snapshot }], true))
    this.messages = init.messages
    this.#writer = new StepWriter(deps.stores, findStoreBatch(deps.stores))
    this.#nested = { agentRuntime: deps.agentRuntime, parentRunId: init.state.runId, forward: this.#forward }
    const { policy } = deps
    this.#limits = {
      maxSteps: policy.maxSteps,
      maxToolCalls: policy.maxToolCalls,
      maxLengthContinuations: policy.maxLengthContinuations,
      doomLoopThreshold: policy.doomLoopThreshold,
      budget: policy.budget,
    }
  }

  get runId(): string {
    return this.state.runId
  }

  get sessionId(): string {
    return this.state.sessionId
  }

  // The callbacks a run hands out (emit, emitDelta, the journal…) are methods bound once per run, not arrow
  // functions in fields: a closure created per run gets its optimized code from a cache V8 empties at each major
  // GC once no closure of the last run is alive, so every run after one started on unoptimized code. A method's
  // code stays with the class.

  /** Emits one event: to the lossless stream, the broadcast bus, and the buffer flushed to the run's event log. */
  readonly emit: (payload: AgentEventPayload | AgentEvent) => void = this.#emit.bind(this)
  /** A text or reasoning delta, the most frequent event. */
  readonly emitDelta: (type: 'text.delta' | 'reasoning.delta', step: number, delta: string) => void = this.#emitDelta.bind(this)
  readonly #pressure: () => Promise<void> | undefined = this.#whenWritable.bind(this)
  readonly #appended: (stored: SessionEntry[]) => void = this.#addAppended.bind(this)
  /** What a tool that runs a nested agent gets (one per run: the run id never changes). */
  readonly #nested: NestedRunHost
  readonly #forward: (event: AgentEvent) => void | Promise<void> = this.#forwardNested.bind(this)

  #forwardNested(event: AgentEvent): void | Promise<void> {
    const channel = this.#init.channel
    if (!channel) return
    channel.push(event)
    const pressure = channel.whenWritable()
    return pressure ? untilAborted(pressure, this.#init.signal) : undefined
  }

  #emit(payload: AgentEventPayload | AgentEvent): void {
    // Every caller passes a fresh literal, so it becomes the event in place: a spread of payloads of a dozen
    // shapes was a measurable share of a step. The events of every step (step.*, tool.*, snapshot.saved) are
    // literals that already hold `runId`, `sessionId`, `seq` and `timestamp` (placeholders, set here): fields
    // added to a literal afterwards go to an out-of-object property array (two allocations, 64 bytes kept), which
    // the event, and the in-memory log's copy of it, then carry (0.5 KB less allocated per step).
    const event = this.#stamp(payload)
    this.#events.push(event)
    this.#deliver(event)
  }

  /**
   * With a redactor, the delta goes through the run's stream redaction (a secret's characters are held back until
   * the secret is whole): what it lets out, redacted, becomes the event, or nothing yet.
   */
  #emitDelta(type: 'text.delta' | 'reasoning.delta', step: number, delta: string): void {
    if (this.#forced) return
    const { redactor } = this.#deps
    if (!redactor) return this.#sendDelta(type, step, delta)
    if (type !== this.#deltaType || step !== this.#deltaStep) {
      this.#flushDeltas()
      this.#deltaType = type
      this.#deltaStep = step
    }
    const sent = (this.#streamRedaction ??= new StreamRedaction(redactor)).push(delta)
    if (sent) this.#sendDelta(type, step, sent)
  }

  /** The part of the stream the redaction holds back, and which part it belongs to. */
  #streamRedaction: StreamRedaction | undefined = undefined
  #deltaType: 'text.delta' | 'reasoning.delta' = 'text.delta'
  #deltaStep = 0

  /** Sends the text held back (before any other event, so that the order of events stays the model's). */
  #flushDeltas(): void {
    const sent = this.#streamRedaction?.flush()
    if (sent) this.#sendDelta(this.#deltaType, this.#deltaStep, sent)
  }

  /** The model call's events: none once the run was ended without it (a provider that ignored the abort). */
  readonly #modelEmit: (payload: AgentEventPayload | AgentEvent) => void = this.#emitFromModel.bind(this)

  #emitFromModel(payload: AgentEventPayload | AgentEvent): void {
    if (!this.#forced) this.#emit(payload)
  }

  /** Built whole in one literal (no added keys); already redacted. */
  #sendDelta(type: 'text.delta' | 'reasoning.delta', step: number, delta: string): void {
    const seq = ++this.#seq
    const timestamp = Date.now()
    const event = { type, step, delta, runId: this.state.runId, sessionId: this.state.sessionId, seq, timestamp } as AgentEvent
    if (this.#init.parentRunId) event.parentRunId = this.#init.parentRunId
    // The buffer keeps the delta, not the object: the commit logs an equal event rebuilt from it.
    this.#events.pushDelta(type, step, delta, seq, timestamp)
    this.#deliver(event)
  }

  /** Hands an event on once its seq is reserved durably (see SeqReservation). */
  #deliver(event: AgentEvent): void {
    this.seqs.deliver(event)
  }

  /** Hands an event to the stream, the bus and the observers (the log gets it from the buffer or a commit). */
  #deliverNow(event: AgentEvent): void {
    this.#init.channel?.push(event)
    try {
      this.#deps.bus.publish(event)
    } catch {
      // The broadcast is a live channel that may drop (the run's log is the authoritative one): its failure never
      // breaks a run, nor turns a tool call that ran into a failure.
    }
    notifyObservers(this.#deps.observers, event)
  }

  /** An event stamped like `#emit` does (seq taken, redacted) but neither buffered nor delivered yet. */
  #stamp(payload: AgentEventPayload): AgentEvent {
    if (this.#streamRedaction?.holding) this.#flushDeltas()
    const raw = payload as AgentEvent
    raw.runId = this.state.runId
    raw.sessionId = this.state.sessionId
    raw.seq = ++this.#seq
    raw.timestamp = Date.now()
    if (this.#init.parentRunId) raw.parentRunId = this.#init.parentRunId
    return this.#deps.redactor ? this.#deps.redactor.redactEvent(raw) : raw
  }

  #whenWritable(): Promise<void> | undefined {
    return this.#init.channel?.whenWritable()
  }

  /**
   * Runs until the run finishes or suspends. Never throws: every exit path ends in exactly one terminal event.
   * `prelude` runs first inside the same guard (appending the input, replaying the log on resume).
   */
  execute(prelude?: () => Promise<void>): Promise<RunOutput> {
    const looping = this.#loop(prelude)
    // A provider that ignores the abort signal would hold the loop in its model call for ever: the run is then
    // ended from here, once per run (racing each model call cost every step 0.7 KB).
    return Promise.race([looping, this.#endWhenModelHangs()])
  }

  /** Set while the loop awaits the model: an abort then gives the provider `modelAbortGraceMs` to stop. */
  #inModelCall = false
  /** The end made without the loop (its provider ignored the abort); the loop, if it ever returns, adds nothing. */
  #forced: Promise<RunOutput> | undefined = undefined

  /** Settles only when the run is aborted during a model call that does not stop within the grace period. */
  #endWhenModelHangs(): Promise<RunOutput> {
    const { signal } = this.#init
    return new Promise<RunOutput>((resolve) => {
      const onAbort = () => {
        if (!this.#inModelCall) return
        const timer = setTimeout(() => {
          if (this.#inModelCall && !this.#terminal) resolve((this.#forced = this.#fail(signal.reason ?? new AbortedError())))
        }, modelAbortGraceMs)
        timer.unref?.()
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  async #loop(prelude?: () => Promise<void>): Promise<RunOutput> {
    let step: Next
    try {
      if (prelude) await prelude()
      step = this.#advance({ type: 'continue' })
      for (;;) {
        if (step.action !== 'finish') this.#checkAbort()
        if (step.action === 'call-model') {
          // The model step runs in this frame (an async method of its own cost every step a frame, a promise and an
          // await): its prelude and its end are synchronous whenever the context build and the approvals are.
          const continuation = step.continuation
          const begun = this.#beginModelStep(continuation)
          const built = begun instanceof Promise ? await begun : begun
          let result: ModelStepResult
          this.#inModelCall = true
          try {
            result = await callModel(this.#init.model, built.request, this.#modelCallOptions(this.#modelStepNumber))
            this.#inModelCall = false
            if (this.#forced) return this.#forced
            this.#observeTokens(built, result)
          } catch (error) {
            this.#inModelCall = false
            if (this.#forced) return this.#forced
            result = await this.#afterModelError(error, continuation)
          }
          const next = this.#endModelStep(result)
          step = next instanceof Promise ? await next : next
        } else if (step.action === 'run-tools') {
          const next = this.#toolStep()
          step = next instanceof Promise ? await next : next
        }
        else if (step.action === 'await-approval') return await this.#suspend()
        else return await this.#finish(step.reason, step.unanswered)
      }
    } catch (error) {
      // Already ended without the loop (a provider that ignored the abort): that end stands.
      if (this.#forced) return this.#forced
      return this.#fail(error)
    }
  }

  #advance(outcome: Outcome): Next {
    const result = transition(this.state, outcome, this.#limits)
    this.state = result.state
    return result.next
  }

  #checkAbort(): void {
    const { signal } = this.#init
    if (signal.aborted) throw signal.reason ?? new AbortedError()
  }

  /** The options of the run's model calls: one object per run (calls never overlap), its step set before each call. */
  #modelOptions: ModelStepOptions | undefined = undefined

  #modelCallOptions(step: number): ModelStepOptions {
    const options = (this.#modelOptions ??= { step, signal: this.#init.signal, policy: this.#deps.policy, emit: this.#modelEmit, emitDelta: this.emitDelta, pressure: this.#pressure })
    options.step = step
    return options
  }

  /** The step the model step in progress runs as, and when it started (set by `#beginModelStep`). */
  #modelStepNumber = 0
  #modelStepStarted = 0

  /** A model step's prelude: `step.started`, then the request (compacted first when it is over the threshold). */
  #beginModelStep(continuation: boolean): BuiltContext | Promise<BuiltContext> {
    this.#checkAbort()
    const step = this.state.step + 1
    this.#modelStepNumber = step
    this.#modelStepStarted = performance.now()
    this.emit({ type: 'step.started', step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    const building = this.#buildRequest(step, continuation)
    if (building instanceof Promise) return building.then((built) => this.#compactIfOver(built, step, continuation))
    return this.#compactIfOver(building, step, continuation)
  }

  /** Proactive compaction: the window shrinks so that the whole request (instructions, tools included) fits the target. */
  #compactIfOver(built: BuiltContext, step: number, continuation: boolean): BuiltContext | Promise<BuiltContext> {
    const budget = this.#contextBudget()
    if (built.tokens <= budget * this.#deps.policy.compaction.threshold) return built
    const overhead = built.tokens - this.#init.window.tokens
    return this.#compact(step, Math.max(0, Math.floor(budget * this.#deps.policy.compaction.target) - overhead)).then((compacted) =>
      compacted ? this.#buildRequest(step, continuation) : built,
    )
  }

  /** A failed model call: on a context overflow, the window is compacted hard and the call made once more; anything else is rethrown. */
  async #afterModelError(error: unknown, continuation: boolean): Promise<ModelStepResult> {
    if (!(error instanceof ContextOverflowError) && !(SpindleError.isInstance(error) && error.code === 'context_overflow')) throw error
    const step = this.#modelStepNumber
    // The provider counted more than the kernel's estimate (or declares a smaller window than it has): half the
    // compaction target may still be above what was sent, so the window also shrinks to half of its own size.
    const target = Math.min(this.#contextBudget() * this.#deps.policy.compaction.target * 0.5, this.#init.window.tokens / 2)
    const compacted = await this.#compact(step, Math.floor(target), true)
    if (!compacted) throw error
    const built = await this.#buildRequest(step, continuation)
    this.#inModelCall = true
    let result: ModelStepResult
    try {
      result = await callModel(this.#init.model, built.request, this.#modelCallOptions(step))
    } finally {
      this.#inModelCall = false
    }
    // Ended without this call (its provider ignored an abort): the loop returns that end.
    if (this.#forced) throw new AbortedError()
    this.#observeTokens(built, result)
    return result
  }

  /** A model step's end: the answer queued for the next commit, its calls prepared, the state advanced. */
  #endModelStep(result: ModelStepResult): Next | Promise<Next> {
    // Priced first: a cost budget that cannot be counted fails the step before its answer is queued.
    const usage = this.#priced(result.usage, this.#init.model)
    // Written with the step's next commit: the first journal start, or the snapshot.
    this.#appendLater([{ kind: 'message', message: result.message, runId: this.runId }])
    const prepared = this.#prepareCalls(result.toolCalls)
    return Array.isArray(prepared) ? this.#modelAnswered(result, prepared, usage) : prepared.then((toolCalls) => this.#modelAnswered(result, toolCalls, usage))
  }

  #modelAnswered(result: ModelStepResult, toolCalls: PendingCall[], usage: Usage | undefined): Next {
    const next = this.#advance({ type: 'model', finishReason: result.finishReason, text: result.text, toolCalls, usage })
    this.#response = result.response
    if (next.action !== 'run-tools') this.#stepFinished(this.#modelStepNumber, result.finishReason, this.#modelStepStarted)
    return next
  }

  /** A calibrating tokenizer learns from what the provider counted for the request it was sent. */
  #observeTokens(built: BuiltContext, result: ModelStepResult): void {
    if (result.usage?.inputTokens) this.#deps.context.tokenizer.observe?.(built.tokens, result.usage.inputTokens)
  }

  /** A step's tool calls: synchronous when the calls and the commits were (a synchronous tool on the memory stores). */
  #toolStep(): Next | Promise<Next> {
    this.#checkAbort()
    const started = performance.now()
    const { state } = this
    const executing = this.#deps.tools.executeCallsNow({
      runId: state.runId,
      sessionId: state.sessionId,
      step: state.step,
      calls: state.pending,
      scope: this.#init.scope,
      policy: this.#deps.policy,
      executions: this.#journal,
      artifacts: this.#deps.stores.artifacts,
      runtime: this.#init.runtime,
      signal: this.#init.signal,
      emit: this.emit,
      nested: this.#nested,
      contextMaxOutputBytes: this.#toolOutputCap(),
    })
    return executing instanceof Promise ? executing.then((result) => this.#toolsDone(result, state.step, started)) : this.#toolsDone(executing, state.step, started)
  }

  #toolsDone({ outcomes, violation }: ExecuteCallsResult, step: number, started: number): Next | Promise<Next> {
    this.#clearRunning()
    this.#appendResults(outcomes)
    let executed = 0
    for (const outcome of outcomes) if (outcome.executed) executed++
    // The calls are answered (their results queued) before anything that may throw: a failure below must not
    // answer them a second time.
    let next = this.#advance({ type: 'tools', executed })
    if (violation) next = this.#advance({ type: 'violation', message: violation })
    this.#applyHandoffs(outcomes)
    this.#stepFinished(step, 'tool-calls', started)
    if (next.action !== 'call-model') return next
    const saving = this.#saveSnapshot()
    return saving ? saving.then(() => next) : next
  }

  /** A successful handoff call gives the rest of the run to its target agent (same session, same history). */
  #applyHandoffs(outcomes: Array<Pick<ToolCallOutcome, 'callId' | 'toolName' | 'isError'>>): void {
    for (const outcome of outcomes) {
      const target = outcome.isError ? undefined : (this.#init.scope.get(outcome.toolName)?.handoff as AgentSpec | undefined)
      if (!target || !this.#deps.resolveAgent) continue
      const from = this.#init.agentName
      const { model, scope, policy } = this.#deps.resolveAgent(target)
      Object.assign(this.#init, { agentName: target.name, instructions: target.instructions, model, scope })
      if (policy) {
        // The rest of the run is the target's: its policy (approvals, allow / deny, limits) applies from here.
        this.#deps.policy = policy
        this.#modelOptions = undefined
        Object.assign(this.#limits, {
          maxSteps: policy.maxSteps,
          maxToolCalls: policy.maxToolCalls,
          maxLengthContinuations: policy.maxLengthContinuations,
          doomLoopThreshold: policy.doomLoopThreshold,
          budget: policy.budget,
        })
      }
      this.state = withState(this.state, { agent: target.name })
      this.emit({ type: 'agent.handoff', step: this.state.step, from, to: target.name, callId: outcome.callId })
      return
    }
  }

  #price: { model: LanguageModel; price: ModelPrice | undefined } | undefined

  /** The step's usage with its cost, from the price table (looked up once per model, not per step). */
  #priced(usage: Usage | undefined, model: LanguageModel): Usage | undefined {
    const { prices } = this.#deps
    if (!usage || usage.costUsd !== undefined) return usage
    if (prices) {
      if (this.#price?.model !== model) this.#price = { model, price: findModelPrice(prices, model.provider, model.modelId) }
      const { price } = this.#price
      if (price) return Object.assign({}, usage, { costUsd: costOf(usage, price) })
    }
    // A cost budget that cannot be counted would never stop the run: said, instead of spending without a limit.
    if (this.#limits.budget.maxCostUsd !== undefined) {
      throw new ConfigurationError(
        `[spindle/core] policy.budget.maxCostUsd is set, but ${model.provider}:${model.modelId} has no price in extensions.prices and its provider reported no cost: the budget cannot be enforced. Add its price (extensions.prices) or remove maxCostUsd.`,
      )
    }
    return usage
  }

  /** Who answered the step's model call (its provider's response metadata), told by the step's `step.finished`. */
  #response: ModelResponseInfo | undefined

  #stepFinished(step: number, finishReason: string, started: number): void {
    const response = this.#response
    this.#response = undefined
    if (response === undefined) {
      this.emit({ type: 'step.finished', step, usage: this.state.usage, finishReason, durationMs: performance.now() - started, runId: '', sessionId: '', seq: 0, timestamp: 0 })
      return
    }
    this.emit({ type: 'step.finished', step, usage: this.state.usage, finishReason, durationMs: performance.now() - started, response, runId: '', sessionId: '', seq: 0, timestamp: 0 })
  }

  /** Marks calls that need a human decision (tool flag, policy names / effect classes, or predicates). */
  /** Synchronous unless an approval predicate is asynchronous (most runs have none). */
  #prepareCalls(calls: PendingCall[]): PendingCall[] | Promise<PendingCall[]> {
    if (!calls.length) return calls
    const { requireApproval } = this.#deps.policy
    // Loops rather than `some()` with arrow functions: this runs every step, and each arrow was an allocation.
    if (typeof requireApproval !== 'function' && !this.#anyApprovalHook(calls)) {
      for (const call of calls) {
        const tool = this.#init.scope.get(call.toolName)
        if (!tool || call.argsError) continue
        const needed = tool.needsApproval === true || listedForApproval(requireApproval, call.toolName, tool)
        if (needed) {
          call.approval = 'required'
          call.argsHash = hashArgs(call.args)
        }
      }
      return calls
    }
    return this.#prepareCallsAsync(calls, requireApproval)
  }

  /** Whether a called tool decides its approval with a function (then the calls are prepared asynchronously). */
  #anyApprovalHook(calls: PendingCall[]): boolean {
    for (const call of calls) if (typeof this.#init.scope.get(call.toolName)?.needsApproval === 'function') return true
    return false
  }

  async #prepareCallsAsync(calls: PendingCall[], requireApproval: RuntimePolicy['requireApproval']): Promise<PendingCall[]> {
    for (const call of calls) {
      const tool = this.#init.scope.get(call.toolName)
      if (!tool || call.argsError) continue
      let needed = false
      try {
        if (typeof requireApproval === 'function') needed = await requireApproval({ toolName: call.toolName, tool, args: call.args })
        else needed = listedForApproval(requireApproval, call.toolName, tool)
        if (!needed && tool.needsApproval !== undefined) {
          needed =
            typeof tool.needsApproval === 'function'
              ? await tool.needsApproval(call.args as never, {
                  runId: this.runId,
                  sessionId: this.sessionId,
                  step: this.state.step + 1,
                  callId: call.callId,
                  toolName: call.toolName,
                  idempotencyKey: `${this.runId}:${this.state.step + 1}:${call.callId}`,
                  signal: this.#init.signal,
                  runtime: this.#init.runtime,
                  artifacts: this.#deps.stores.artifacts,
                })
              : tool.needsApproval
        }
      } catch {
        // An approval check that fails closes safe: a human decides (the assistant message asking for the call is
        // already queued; throwing here would leave its call without a result).
        needed = true
      }
      if (needed) {
        call.approval = 'required'
        call.argsHash = hashArgs(call.args)
      }
    }
    return calls
  }

  #outputReserve(): number {
    const { capabilities } = this.#init.model
    return this.#deps.policy.compaction.outputReserve ?? Math.min(capabilities.maxOutputTokens, Math.floor(capabilities.contextWindow / 4))
  }

  /**
   * A quarter of the context budget, at 3 bytes a token (JSON and code count about that; prose more): a few results
   * of one step then still leave room for the question and the answer. Only small windows make it bind: a 128k
   * model's share is far above the default `maxToolOutputBytes`.
   */
  #toolOutputCap(): number {
    return Math.max(1_024, Math.floor(this.#contextBudget() / 4) * 3)
  }

  #contextBudget(): number {
    return Math.max(256, this.#init.model.capabilities.contextWindow - this.#outputReserve())
  }

  /** The step's request: synchronous when nothing is queued and every context adapter is (no async round per step then). */
  #buildRequest(step: number, continuation: boolean): BuiltContext | Promise<BuiltContext> {
    // The window must hold every message of the run (a length continuation follows its answer directly).
    if (this.#writer.queuedCount) return this.#writer.commit().then(() => this.#buildRequest(step, continuation))
    const { window } = this.#init
    const built = this.#deps.context.buildNow(
      {
        runId: this.runId,
        sessionId: this.sessionId,
        step,
        agentName: this.#init.agentName,
        instructions: this.#init.instructions,
        model: this.#init.model,
        window: window.entries,
        compaction: window.compaction,
        tools: this.#init.scope.offered(this.#deps.policy.tools),
        stores: this.#deps.stores,
        runtime: this.#init.runtime,
        signal: this.#init.signal,
      },
      window.messages,
      window.tokens,
    )
    return built instanceof Promise ? built.then((request) => this.#finishRequest(request, continuation)) : this.#finishRequest(built, continuation)
  }

  #finishRequest(built: BuiltContext, continuation: boolean): BuiltContext {
    if (continuation) built.request.messages = built.request.messages.concat({ role: 'user', content: continuationPrompt })
    // The answer must fit the room the budget kept free for it.
    built.request.maxOutputTokens ??= this.#outputReserve()
    return built
  }

  /** Compacts the window to `targetTokens`; records the compaction in the session log. */
  async #compact(step: number, targetTokens: number, force = false): Promise<boolean> {
    const { window } = this.#init
    const tokensBefore = window.tokens
    const record = await this.#deps.compaction.compact({
      sessionId: this.sessionId,
      window: window.entries,
      previous: window.compaction,
      targetTokens,
      countTokens: (messages) => countMessagesTokens(messages, this.#deps.context.tokenizer),
      signal: this.#init.signal,
      onStrategyError: (error, strategy) => this.emit(compactionFailed(step, strategy, error, this.#deps.compaction.circuitOpen, this.#deps.redactor)),
    })
    if (!record) return false
    if (!force && record.throughSeq <= (window.compaction?.throughSeq ?? 0)) return false
    await this.#append([{ kind: 'compaction', compaction: record, runId: this.runId }])
    this.emit({
      type: 'compaction.applied',
      step,
      strategy: record.strategy,
      throughSeq: record.throughSeq,
      tokensBefore,
      tokensAfter: window.tokens,
    })
    return true
  }

  /** Appends now (after the queued writes). */
  async #append(entries: SessionEntryInput[]): Promise<void> {
    const [stored] = await this.#writer.commit([{ type: 'session.append', sessionId: this.sessionId, entries, fence: this.#init.lease.token, expectedLastSeq: undefined }])
    this.#appended(stored as SessionEntry[])
  }

  /** Queues an append for the step's next commit; the window and the run's messages take it once written. */
  #appendLater(entries: SessionEntryInput[]): void {
    this.#writer.defer({ type: 'session.append', sessionId: this.sessionId, entries, fence: this.#init.lease.token, expectedLastSeq: undefined }, this.#appended)
  }

  #addAppended(stored: SessionEntry[]): void {
    this.#init.window.add(stored)
    for (const entry of stored) if (entry.kind === 'message') this.messages.push(entry.message)
  }

  /**
   * The tool-call journal as the ToolRuntime sees it. A start is committed at once, with the writes queued
   * before it (the assistant message that asked for the call: one commit). A finish is committed at once
   * while another call of the step still runs; the last one goes with the step's next commit (the next
   * call's start, or the tool results and the snapshot), which follows it without any wait in between.
   */
  readonly #journal: ToolJournal = { start: this.#journalStart.bind(this), finish: this.#journalFinish.bind(this) }

  /** Synchronous when the writer commits synchronously (the memory stores): the tool then runs without an async round. */
  #journalStart(execution: NewExecution): ReturnType<ToolJournal['start']> {
    const committed = this.#writer.commitNow([{ type: 'execution.start', execution }])
    return Array.isArray(committed) ? this.#started(execution, committed[0]) : committed.then(([result]) => this.#started(execution, result))
  }

  #started(execution: NewExecution, result: StoreWriteResult | undefined): Awaited<ReturnType<ToolJournal['start']>> {
    const started = result as Awaited<ReturnType<ToolJournal['start']>>
    if (started.record.status === 'started' && this.#runningIndex(execution.key) < 0) {
      if (this.#runningCount === this.#running.length) this.#running.push(execution.key)
      else this.#running[this.#runningCount] = execution.key
      this.#runningCount++
    }
    return started
  }

  #runningIndex(key: string): number {
    for (let index = 0; index < this.#runningCount; index++) if (this.#running[index] === key) return index
    return -1
  }

  #clearRunning(): void {
    for (let index = 0; index < this.#runningCount; index++) this.#running[index] = undefined as never
    this.#runningCount = 0
  }

  #journalFinish(key: string, outcome: ExecutionOutcome): ReturnType<ToolJournal['finish']> {
    const index = this.#runningIndex(key)
    if (index >= 0) {
      const last = --this.#runningCount
      this.#running[index] = this.#running[last]!
      this.#running[last] = undefined as never
    }
    // Every journal write of a run passes here: its error text is bounded for any store.
    const write: StoreWrite = { type: 'execution.finish', key, outcome: boundExecutionOutcome(outcome) }
    if (this.#runningCount || !this.#writer.batch) return this.#writer.commit([write]) as ReturnType<ToolJournal['finish']>
    this.#writer.defer(write)
  }

  #appendResults(outcomes: ToolCallOutcome[]): void {
    if (!outcomes.length) return
    const content = sizedArray<ToolResultPart>(outcomes.length)
    for (let index = 0; index < outcomes.length; index++) {
      const outcome = outcomes[index]!
      content[index] = outcome.isError
        ? { type: 'tool-result', toolCallId: outcome.callId, toolName: outcome.toolName, result: outcome.result, isError: true }
        : { type: 'tool-result', toolCallId: outcome.callId, toolName: outcome.toolName, result: outcome.result }
    }
    this.#appendLater([{ kind: 'message', message: { role: 'tool', content }, runId: this.runId }])
  }

  /** Every tool call in the history gets a result, even when the run ends before executing it. */
  #closeCalls(calls: PendingCall[], reason: string): void {
    if (!calls.length) return
    this.#appendResults(
      calls.map((call) => ({
        callId: call.callId,
        toolName: call.toolName,
        result: { error: `Not executed: ${reason}.` },
        isError: true,
        durationMs: 0,
        reused: false,
        executed: false,
      })),
    )
  }

  /**
   * Closes the calls of a step the run left mid-way: a call the journal saw finish keeps its real outcome (the model
   * must never be told that a call which ran, a payment say, was not executed); a call that started and was
   * interrupted is reported as such; only the others are "not executed".
   */
  async #closeCallsFromJournal(calls: PendingCall[], reason: string): Promise<void> {
    if (!calls.length) return
    try {
      await this.#writer.commit()
    } catch {
      // The failure path goes on: the journal read below may still answer.
    }
    const outcomes: ToolCallOutcome[] = []
    for (const call of calls) {
      let record: Awaited<ReturnType<Stores['executions']['get']>>
      try {
        record = await this.#deps.stores.executions.get(`${this.runId}:${this.state.step}:${call.callId}`)
      } catch {
        record = undefined
      }
      const base = { callId: call.callId, toolName: call.toolName, durationMs: 0, reused: true, executed: false }
      if (record?.status === 'succeeded') outcomes.push({ ...base, result: capJournaledOutput(record.result ?? null, this.#deps.policy), isError: false })
      else if (record?.status === 'failed') outcomes.push({ ...base, result: { error: record.error?.message ?? 'failed' }, isError: true })
      else if (record) outcomes.push({ ...base, result: { error: `Interrupted: ${reason} while this call ran; its effect is unknown. Check before retrying.` }, isError: true })
      else outcomes.push({ ...base, reused: false, result: { error: `Not executed: ${reason}.` }, isError: true })
    }
    this.#appendResults(outcomes)
  }

  /** Saves a snapshot now (after the input is appended, so a crash before the first step can resume). */
  checkpoint(): Promise<void> {
    return this.#saveSnapshot() ?? Promise.resolve()
  }

  /** Appends messages to the session (the run's input) and records where the run starts in the log. */
  async appendInput(messages: ModelMessage[]): Promise<void> {
    const entries = messages.map((message) => ({ kind: 'message' as const, message, runId: this.runId }))
    if (this.#writer.batch && entries.length && !this.#writer.queuedCount) {
      // Committed with the checkpoint that follows (one commit), at the seqs the snapshot predicts; the
      // conditional append makes a wrong prediction fail that commit, and `#inputSeq` then corrects it.
      const firstSeq = this.#init.window.lastSeq + 1
      this.state = withState(this.state, { firstSeq, lastSeq: firstSeq + entries.length - 1 })
      this.#writer.defer({ type: 'session.append', sessionId: this.sessionId, entries, fence: this.#init.lease.token, expectedLastSeq: undefined }, (stored) => {
        this.#inputSeq = stored[0]?.seq
        this.#appended(stored)
      })
      return
    }
    const before = this.messages.length
    await this.#append(entries)
    if (this.messages.length > before) {
      const lastSeq = this.#init.window.lastSeq
      this.state = withState(this.state, { firstSeq: lastSeq - messages.length + 1, lastSeq })
    }
  }

  /** The seq the run's input got, once written. */
  #inputSeq: number | undefined

  /**
   * Rolls the state forward over entries this run wrote after its snapshot (a crash between a write and the
   * next snapshot): the session log is the truth, the snapshot only a shortcut.
   */
  async replay(entries: SessionEntry[]): Promise<void> {
    for (const entry of entries) {
      if (entry.runId !== this.runId || entry.seq <= this.state.lastSeq || entry.kind !== 'message') continue
      const { message } = entry
      this.messages.push(message)
      if (message.role === 'assistant' && this.state.phase === 'model') {
        const calls: PendingCall[] = []
        let text = ''
        for (const part of message.content) {
          if (part.type === 'text') text += part.text
          if (part.type === 'tool-call') calls.push({ callId: part.toolCallId, toolName: part.toolName, args: part.args })
        }
        this.#advance({ type: 'model', finishReason: calls.length ? 'tool-calls' : 'stop', text, toolCalls: await this.#prepareCalls(calls), usage: undefined })
      } else if (message.role === 'tool' && this.state.phase === 'tools') {
        this.#applyHandoffs(message.content.map((part) => ({ callId: part.toolCallId, toolName: part.toolName, isError: part.isError === true })))
        const answered = new Set(message.content.map((part) => part.toolCallId))
        this.#advance({ type: 'tools', executed: this.state.pending.filter((call) => answered.has(call.callId)).length })
      }
      this.state = withState(this.state, { lastSeq: entry.seq })
    }
  }

  /** Saves a snapshot: undefined when it was committed synchronously (the memory stores' batch), else a promise. */
  #saveSnapshot(): Promise<void> | undefined {
    return this.#writer.batch ? this.#saveSnapshotBatched() : this.#saveSnapshotUnbatched()
  }

  async #saveSnapshotUnbatched(): Promise<void> {
    // One call per write. Events first: a crash between the snapshot and its event then loses only
    // `snapshot.saved`, whose seq a resume takes again (the event log stays gap-free).
    await this.#writer.commit()
    await this.#flushEvents()
    this.state = withState(this.state, { eventSeq: this.#seq + 1, lastSeq: this.#init.window.lastSeq })
    this.seqs.reserve(this.state)
    // The snapshot.saved event takes the seq reserved above, so a resume continues after it.
    await this.#writer.commit([{ type: 'snapshot.save', snapshot: this.#snapshot() }]).then(
      () => this.seqs.committed(),
      (error: unknown) => {
        this.seqs.failed()
        throw error
      },
    )
    this.emit({ type: 'snapshot.saved', step: this.state.step, version: this.state.step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    // The run record is not rewritten per step: the snapshot holds step and usage, the heartbeat renews the lease.
    await this.#flushEvents()
  }

  /**
   * One atomic commit: the queued writes (messages, the last journal finish), the events and the snapshot with
   * its own event. The snapshot refers to the seqs the queued appends will get; each append carries the
   * `lastSeq` it expects, so another writer appending in between fails the whole commit instead of leaving a
   * snapshot that points at the wrong entries — the appends are then written alone, and the snapshot after.
   * Returns undefined when the batch committed synchronously (the memory stores): no async round per step.
   */
  #saveSnapshotBatched(end?: RunEnd): Promise<void> | undefined {
    // Every append write is built with an `expectedLastSeq` field (undefined until set here): a field added to an
    // object after its literal gives it a map V8 drops at the next major GC (see `runExecutionShapeKeeper`).
    let lastSeq = this.#init.window.lastSeq
    for (let index = 0; index < this.#writer.queuedCount; index++) {
      const write = this.#writer.queuedWrite(index)
      if (write.type !== 'session.append') continue
      write.expectedLastSeq = lastSeq
      lastSeq += write.entries.length
    }
    // States are values: one a snapshot was given is copied. A state no snapshot has seen yet (the transition's
    // own copy, held only by this run) takes the seqs in place.
    const state = this.state === this.#savedState ? copyState(this.state) : this.state
    state.eventSeq = this.#seq + 1
    state.lastSeq = lastSeq
    this.seqs.reserve(state)
    this.state = state
    this.emit({ type: 'snapshot.saved', step: this.state.step, version: this.state.step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    const events = this.#takeEvents()
    // The run's end: its terminal event is logged by this commit and delivered only once it is written.
    const terminal = end ? this.#stamp(end.event) : undefined
    if (terminal) events.push(terminal)
    let committed: StoreWriteResult[] | Promise<StoreWriteResult[]>
    try {
      committed = this.#writer.commitNow(this.#snapshotWrites(events, end), true, false)
    } catch (error) {
      // A synchronous failure wrote nothing: the same handling as an asynchronous one (a sequence conflict is retried).
      committed = Promise.reject(error)
    }
    if (!Array.isArray(committed)) return this.#snapshotSettled(committed, events, end, terminal)
    this.seqs.committed()
    if (terminal) this.#endDelivered(terminal)
    return undefined
  }

  /** The writes of a snapshot commit (after the queued ones): its events, the snapshot, and at the run's end its record. */
  #snapshotWrites(events: AgentEvent[], end: RunEnd | undefined): StoreWrite[] {
    const list: StoreWrite[] = [{ type: 'run.events', runId: this.runId, events }, { type: 'snapshot.save', snapshot: this.#snapshot() }]
    if (end) list.push({ type: 'run.update', runId: this.runId, patch: end.patch })
    return list
  }

  async #snapshotSettled(committing: Promise<unknown>, events: AgentEvent[], end: RunEnd | undefined, terminal: AgentEvent | undefined): Promise<void> {
    try {
      try {
        await committing
      } catch (error) {
        if (!SpindleError.isInstance(error) || error.code !== 'sequence_conflict') throw error
        for (const write of this.#writer.queued) if (write.type === 'session.append') write.expectedLastSeq = undefined
        await this.#writer.commit([], true)
        this.state = withState(this.state, { lastSeq: this.#init.window.lastSeq, firstSeq: this.#inputSeq ?? this.state.firstSeq })
        await this.#writer.commit(this.#snapshotWrites(events, end))
      }
    } catch (error) {
      // A failed batch wrote nothing: its events go back in front of the buffer, so the commit that follows (the
      // run's failure path) logs them and the event log stays gap-free. An undelivered terminal event is taken
      // back with its seq: the failure path ends the run with its own.
      this.seqs.failed()
      if (terminal) {
        events.pop()
        this.#seq--
      }
      this.#events.restore(events)
      throw error
    }
    this.seqs.committed()
    if (terminal) this.#endDelivered(terminal)
  }

  /** The run's terminal event, once the commit that logs it is written. */
  #endDelivered(terminal: AgentEvent): void {
    this.#terminal = true
    this.#deliver(terminal)
    this.seqs.releaseAll()
  }

  /** The state object the last snapshot was given: never changed afterwards (a store may keep it as it is). */
  #savedState: RunState | undefined = undefined

  #snapshot() {
    const { state } = this
    this.#savedState = state
    // The answer so far is an output like `run.finished`'s text: stored redacted. A resume rebuilds it from the
    // session log (`answerText`), which keeps what the model wrote.
    const { redactor } = this.#deps
    const text = redactor && state.text ? redactor.redact(state.text) : state.text
    const stored = text === state.text ? state : withState(state, { text })
    const snapshot = { runId: this.runId, sessionId: this.sessionId, version: state.step, state: stored as never, createdAt: Date.now() }
    this.seqs.built(snapshot)
    return snapshot
  }

  #takeEvents(): AgentEvent[] {
    return this.#events.take()
  }

  async #flushEvents(): Promise<void> {
    if (!this.#events.length) return
    const events = this.#takeEvents()
    try {
      await this.#writer.commit([{ type: 'run.events', runId: this.runId, events }])
    } catch (error) {
      this.#events.restore(events)
      throw error
    }
  }

  async #suspend(): Promise<RunOutput> {
    for (const call of this.state.pending) {
      if (call.approval === 'required') this.emit({ type: 'approval.requested', step: this.state.step, callId: call.callId, toolName: call.toolName, args: call.args })
    }
    return this.#end('awaiting_approval', { status: 'suspended', finishReason: 'awaiting_approval', step: this.state.step, usage: this.state.usage, lease: undefined })
  }

  async #finish(reason: FinishReason, unanswered: PendingCall[]): Promise<RunOutput> {
    this.#closeCalls(unanswered, `the run ended (${reason})`)
    return this.#end(reason, this.#endPatch(reason))
  }

  /**
   * Saves the last snapshot and ends the run. With a shared batch that is one commit (the queued writes, the
   * snapshot, the events with the terminal one, and the run's end): one commit fewer per run than a snapshot
   * then an end, and the end is as atomic as the rest. Without one, the snapshot is saved, then `#terminal_`.
   */
  async #end(reason: FinishReason, patch: RunPatch): Promise<RunOutput> {
    if (!this.#writer.batch) {
      await this.#saveSnapshot()
      return this.#terminal_(reason, patch)
    }
    const output = this.output(reason)
    const saving = this.#saveSnapshotBatched({ event: this.#terminalPayload(reason, output), patch })
    if (saving) await saving
    return output
  }

  /** The one terminal event of a run that ends with `reason`. */
  #terminalPayload(reason: FinishReason, output: RunOutput): AgentEventPayload {
    return reason === 'error'
      ? { type: 'run.failed', finishReason: 'error', error: this.state.error ?? { code: 'error', message: 'failed' }, usage: output.usage, steps: output.steps }
      : { type: 'run.finished', finishReason: reason, text: output.text, usage: output.usage, steps: output.steps, ...(this.state.error ? { error: this.state.error } : {}) }
  }

  #endPatch(reason: FinishReason): RunPatch {
    return {
      status: runStatusOf(reason),
      finishReason: reason,
      step: this.state.step,
      usage: this.state.usage,
      finishedAt: Date.now(),
      lease: undefined,
      ...(this.state.error ? { error: this.state.error } : {}),
    }
  }

  /**
   * The session lease was lost: another holder owns the run now (and will finish it). Nothing is written —
   * the store would refuse the stale fence anyway — and only this execution's own stream is told.
   */
  #abandon(error: SpindleError): RunOutput {
    this.#terminal = true
    this.seqs.dropHeld()
    const output = { ...this.output('error'), error: runErrorOf(error) }
    const event = { type: 'run.failed', finishReason: 'error', error: output.error, usage: output.usage, steps: output.steps } as AgentEventPayload as AgentEvent
    Object.assign(event, { runId: this.runId, sessionId: this.sessionId, seq: this.#seq + 1, timestamp: Date.now() })
    this.#init.channel?.push(event)
    return output
  }

  /**
   * Emits the one terminal event and flushes the log, then records the end on the run (`end`): a crash in
   * between leaves a logged end that `resume()` records, never an ended run whose log lacks its end.
   */
  async #terminal_(reason: FinishReason, end?: RunPatch): Promise<RunOutput> {
    this.#terminal = true
    const output = this.output(reason)
    this.emit(this.#terminalPayload(reason, output))
    const events = this.#takeEvents()
    const writes: StoreWrite[] = events.length ? [{ type: 'run.events', runId: this.runId, events }] : []
    // When the record's update fails the run stays `running`: recover() (or a queue's retry of the job, see
    // `endNotRecorded`) resumes it, finds the logged end and records it.
    if (end) writes.push({ type: 'run.update', runId: this.runId, patch: end })
    let recorded = end === undefined
    if (this.#writer.batch) {
      recorded = await this.#writer.commit(writes).then(
        () => true,
        // A store that refuses the data itself (not a transient failure) would refuse it again on every resume: the
        // run would stay `running` for ever. The record's end alone is written then; the events are lost.
        (error: unknown) => (end !== undefined && SpindleError.isInstance(error) && !error.isRetryable ? this.#writer.commit([writes[writes.length - 1]!]).then(() => true, () => false) : false),
      )
    } else {
      for (const write of writes) {
        const written = await this.#writer.commit([write]).then(() => true, () => false)
        if (write.type === 'run.update') recorded = written
      }
    }
    this.seqs.releaseAll()
    if (!recorded) unrecordedEnds.add(output)
    return output
  }

  output(reason: FinishReason): RunOutput {
    return {
      runId: this.runId,
      sessionId: this.sessionId,
      finishReason: reason,
      text: this.state.text,
      messages: this.messages,
      steps: this.state.step,
      usage: this.state.usage,
      ...(this.state.error ? { error: this.state.error } : {}),
    }
  }

  /** Any exception: map aborts to cancelled / timeout, everything else to error; best-effort persistence. */
  async #fail(error: unknown): Promise<RunOutput> {
    if (this.#terminal) return this.output(this.state.finishReason ?? 'error')
    const { reason: abort } = this.#init.signal
    if (this.#init.signal.aborted && SpindleError.isInstance(abort) && abort.code === 'lease_lost') return this.#abandon(abort)
    const reason = this.#init.signal.aborted ? abortReason(this.#init.signal.reason) : undefined
    const raw = runErrorOf(error)
    const serialized = this.#deps.redactor ? this.#deps.redactor.redactError(raw) : raw
    const result = transition(this.state, reason ? { type: 'aborted', reason } : { type: 'error', error: serialized }, this.#limits)
    this.state = reason === 'timeout' ? withState(result.state, { error: runErrorOf(this.#init.signal.reason) }) : result.state
    const finalReason = result.next.action === 'finish' ? result.next.reason : 'error'
    try {
      const unanswered = result.next.action === 'finish' ? result.next.unanswered : []
      await this.#closeCallsFromJournal(unanswered, finalReason === 'error' ? 'the run failed' : `the run was ${finalReason === 'timeout' ? 'timed out' : 'cancelled'}`)
      await this.#saveSnapshot()
    } catch {
      // The store itself may be what failed: the terminal event is still emitted below.
    }
    // Same as above: a run left `running` is found by recover().
    return this.#terminal_(finalReason, this.#endPatch(finalReason))
  }
}

/** How long a model call may go on after its run was aborted before the run is ended without it. */
const modelAbortGraceMs = 250

/** Outputs of runs whose end could not be written to their run record (the store failed at the last commit). */
const unrecordedEnds = new WeakSet<RunOutput>()

/**
 * True when `output` ended a run whose record could not be updated: the store still says `running`, and a
 * `resume()` (a queue's retry of the job, or `recover()`) must record the end.
 */
export function endNotRecorded(output: RunOutput): boolean {
  return unrecordedEnds.has(output)
}

/** A run's end, committed with its last snapshot: the terminal event (not yet stamped) and the run record's patch. */
interface RunEnd {
  event: AgentEventPayload
  patch: RunPatch
}

function abortReason(reason: unknown): 'cancelled' | 'timeout' {
  return reason instanceof TimeoutError || (SpindleError.isInstance(reason) && reason.code === 'timeout') ? 'timeout' : 'cancelled'
}

/**
 * The deps of a run, as one literal with every field: the runtime builds each run's deps here and the shape
 * keeper below holds one, so their map outlives any run (a literal's map, too, is dropped by a major GC once no
 * object has it).
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
    resolveAgent: deps.resolveAgent,
    observers: deps.observers,
    redactor: deps.redactor,
    prices: deps.prices,
  }
}

/** What the runtime starts a run with (its agent spec, not yet the fields a run reads). */
export type RunExecutionStart = Omit<RunExecutionInit, 'agentName' | 'instructions' | 'messages'> & {
  agent: AgentSpec
  messages?: ModelMessage[]
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

/**
 * V8 keeps a hidden class (the "map" all instances with the same fields share) only while some object has it,
 * and the maps a constructor builds field by field are linked weakly. Between two runs no RunExecution exists:
 * a major GC there drops its maps, the next run's instances get new ones, every inline cache of the hot methods
 * sees a new shape, and V8 restarts their tier-up to optimized code. Measured: a 100-step run took 2.2x as long
 * after each full GC (45 vs 21 µs per step), and a busy process (its own allocations, other libraries) runs
 * major GCs all the time. This instance, built on empty inputs and never run, keeps the maps of RunExecution and
 * its StepWriter alive for the module's lifetime. Exported for the test that checks real runs share its map.
 */
export const runExecutionShapeKeeper = new RunExecution(
  runExecutionDeps({ stores: { sessions: {} }, policy: {} } as unknown as RunExecutionDeps),
  runExecutionInit({ state: withState(initialRunState('', '', 1), {}), agent: { name: '' } } as unknown as RunExecutionStart),
)

/** Whether the policy's `requireApproval` list names the tool (by the name called, its id, or its effect class). */


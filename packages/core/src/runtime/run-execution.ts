// One execution of a run (a start or a resume): the loop that applies `transition` and performs its actions —
// context → compaction → model → persist → tools (journaled) → persist → snapshot → policy. Its parts: the run's
// events (run-events.ts), its writes (run-commit.ts), its tool journal (run-journal.ts), the model request
// (model-request.ts) and the approval check (approval-check.ts), all sharing one RunContext.
import { AbortedError, ContextOverflowError, TimeoutError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { ModelResponseInfo } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import type { FinishReason } from '../spec/run-store.js'
import type { SessionEntry } from '../spec/session-store.js'
import type { ExecuteCallsResult, ToolCallOutcome } from '../tools/tool-step.js'
import type { NestedRunHost } from '../tools/tool.js'
import { markApprovals } from './approval-check.js'
import { applyHandoffs } from './apply-handoff.js'
import { isPending, type MaybePromise } from '../util/fast-path.js'
import { callModel, type ModelStepOptions, type ModelStepResult } from './model-step.js'
import { modelRequestBuilder, type ModelRequestBuilder } from './model-request.js'
import { runCommit, type RunCommit } from './run-commit.js'
import { runContext, type RunContext, type RunExecutionDeps, type RunExecutionInit } from './run-context.js'
import { runEvents, type RunEvents } from './run-events.js'
import { runJournal, type RunJournal } from './run-journal.js'
import type { RunOpening } from './run-opening.js'
import type { RunOutput } from './run-request.js'
import { type PendingCall, withState } from './run-state.js'
import { runErrorOf } from './run-error-of.js'
import { announceInterruptedStep } from './resume-numbering.js'
import { type Next, type Outcome, transition } from './transition.js'

export { endNotRecorded } from './run-commit.js'
export { runExecutionDeps, runExecutionInit, type RunExecutionDeps, type RunExecutionInit, type RunExecutionStart } from './run-context.js'

/**
 * One execution of a run: the loop over `transition()`, driving the run's events, commits, journal and model requests.
 * Built and driven by the runtime (`executeHeld`); it never calls the runtime back. `new RunExecution(…)` returns one
 * literal with every field and these methods as own properties, as its parts are built (see util/fast-path.ts).
 */
export class RunExecution {
  declare readonly run: RunContext
  declare readonly events: RunEvents
  declare readonly commit: RunCommit
  declare readonly journal: RunJournal
  declare readonly requests: ModelRequestBuilder
  /** What a tool that runs a nested agent gets (one per run: the run id never changes). */
  declare readonly nested: NestedRunHost
  /** Emits one event (see RunEvents.emit). */
  declare readonly emit: (payload: AgentEventPayload | AgentEvent) => void
  /** Emits a text or reasoning delta (see RunEvents.emitDelta). */
  declare readonly emitDelta: (type: 'text.delta' | 'reasoning.delta', step: number, delta: string) => void
  /** Set while the loop awaits the model: an abort then gives the provider `modelAbortGraceMs` to stop. */
  declare inModelCall: boolean
  /** The end made without the loop (its provider ignored the abort); the loop, if it ever returns, adds nothing. */
  declare forced: Promise<RunOutput> | undefined
  /** The options of the run's model calls: one object per run (calls never overlap), its step set before each call. */
  declare modelOptions: ModelStepOptions | undefined
  /** The step the model step in progress runs as (set by `beginModelStep`). */
  declare modelStepNumber: number
  /** When the model step in progress started: a double from the start (-0), as `performance.now()` is (util/fast-path.ts). */
  declare modelStepStarted: number
  /** Who answered the step's model call, when the provider said. */
  declare response: ModelResponseInfo | undefined

  constructor(deps: RunExecutionDeps, init: RunExecutionInit) {
    return runExecution(deps, init)
  }

  /** Runs until the run finishes or suspends. Never throws: every exit path ends in exactly one terminal event. */
  execute(opening: RunOpening): Promise<RunOutput> {
    const looping = this.loop(opening)
    // A provider that ignores the abort signal would hold the loop in its model call for ever: the run is then
    // ended from here, once per run (racing each model call cost every step 0.7 KB).
    return Promise.race([looping, this.endWhenModelHangs()])
  }

  /** Settles only when the run is aborted during a model call that does not stop within the grace period. */
  endWhenModelHangs(): Promise<RunOutput> {
    const { signal } = this.run.init
    return new Promise<RunOutput>((resolve) => {
      const onAbort = () => {
        if (!this.inModelCall) return
        const timer = setTimeout(() => {
          if (!this.inModelCall || this.commit.ended) return
          this.events.modelSilenced = true
          resolve((this.forced = this.fail(signal.reason ?? new AbortedError())))
        }, modelAbortGraceMs)
        timer.unref?.()
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  async open(opening: RunOpening): Promise<void> {
    for (const event of opening.events) this.emit(event)
    if (opening.input) {
      await this.commit.appendInput(opening.input)
      await (this.commit.saveSnapshot() ?? Promise.resolve())
    }
    if (opening.replay) {
      await this.replay(opening.replay.entries)
      // The step the crash interrupted was never logged (a snapshot in the tools phase logged its calls).
      if (opening.replay.announce) announceInterruptedStep({ state: this.run.state, messages: this.run.messages, emit: this.emit, emitDelta: this.emitDelta })
    }
  }

  async loop(opening: RunOpening): Promise<RunOutput> {
    let step: Next
    try {
      await this.open(opening)
      step = this.advance({ type: 'continue' })
      for (;;) {
        if (step.action !== 'finish') this.checkAbort()
        if (step.action === 'call-model') {
          // The model step runs in this frame (an async method of its own cost every step a frame, a promise and an
          // await): its prelude and its end are synchronous whenever the context build and the approvals are.
          const continuation = step.continuation
          const begun = this.beginModelStep(continuation)
          const built = isPending(begun) ? await begun : begun
          let result: ModelStepResult
          this.inModelCall = true
          try {
            result = await callModel(this.run.init.model, built.request, this.modelCallOptions(this.modelStepNumber))
            this.inModelCall = false
            if (this.forced) return this.forced
            this.requests.observeTokens(built, result)
          } catch (error) {
            this.inModelCall = false
            if (this.forced) return this.forced
            result = await this.afterModelError(error, continuation)
          }
          const next = this.endModelStep(result)
          step = isPending(next) ? await next : next
        } else if (step.action === 'run-tools') {
          const next = this.toolStep()
          step = isPending(next) ? await next : next
        } else if (step.action === 'await-approval') return await this.suspend()
        else return await this.finish(step.reason, step.unanswered)
      }
    } catch (error) {
      // Already ended without the loop (a provider that ignored the abort): that end stands.
      if (this.forced) return this.forced
      return this.fail(error)
    }
  }

  advance(outcome: Outcome): Next {
    const result = transition(this.run.state, outcome, this.run.limits)
    this.run.state = result.state
    return result.next
  }

  checkAbort(): void {
    const { signal } = this.run.init
    if (signal.aborted) throw signal.reason ?? new AbortedError()
  }

  /** The options of the run's model calls, built once per run. */
  modelCallOptions(step: number): ModelStepOptions {
    const events = this.events
    const options = (this.modelOptions ??= {
      step,
      signal: this.run.init.signal,
      policy: this.run.deps.policy,
      emit: events.emitFromModel,
      emitDelta: events.emitDelta,
      pressure: events.whenWritable,
    })
    options.step = step
    return options
  }

  /** A model step's prelude: `step.started`, then the request (compacted first when it is over the threshold). */
  beginModelStep(continuation: boolean) {
    this.checkAbort()
    const step = this.run.state.step + 1
    this.modelStepNumber = step
    this.modelStepStarted = performance.now()
    this.emit({ type: 'step.started', step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    return this.requests.build(step, continuation)
  }

  /** A failed model call: on a context overflow, the window is compacted hard and the call made once more; anything else is rethrown. */
  async afterModelError(error: unknown, continuation: boolean): Promise<ModelStepResult> {
    if (!ContextOverflowError.isInstance(error) && !(SpindleError.isInstance(error) && error.code === 'context_overflow')) throw error
    const step = this.modelStepNumber
    const { deps, init } = this.run
    // The provider counted more than the kernel's estimate (or declares a smaller window than it has): half the
    // compaction target may still be above what was sent, so the window also shrinks to half of its own size.
    const target = Math.min(this.requests.contextBudget() * deps.policy.compaction.target * 0.5, init.window.tokens / 2)
    const compacted = await this.requests.compact(step, Math.floor(target), true)
    if (!compacted) throw error
    const built = await this.requests.request(step, continuation)
    this.inModelCall = true
    let result: ModelStepResult
    try {
      result = await callModel(init.model, built.request, this.modelCallOptions(step))
    } finally {
      this.inModelCall = false
    }
    // Ended without this call (its provider ignored an abort): the loop returns that end.
    if (this.forced) throw new AbortedError()
    this.requests.observeTokens(built, result)
    return result
  }

  /** A model step's end: the answer queued for the next commit, its calls checked for approval, the state advanced. */
  endModelStep(result: ModelStepResult): MaybePromise<Next> {
    // Priced first: a cost budget that cannot be counted fails the step before its answer is queued.
    const usage = this.requests.priced(result.usage, this.run.init.model)
    // Written with the step's next commit: the first journal start, or the snapshot.
    this.commit.appendWithNextCommit([{ kind: 'message', message: result.message, runId: this.run.runId }])
    const checked = markApprovals(this.run, result.toolCalls)
    return isPending(checked) ? checked.then((toolCalls) => this.modelAnswered(result, toolCalls, usage)) : this.modelAnswered(result, checked, usage)
  }

  modelAnswered(result: ModelStepResult, toolCalls: PendingCall[], usage: Usage | undefined): Next {
    const next = this.advance({ type: 'model', finishReason: result.finishReason, text: result.text, toolCalls, usage })
    this.response = result.response
    if (next.action !== 'run-tools') this.stepFinished(this.modelStepNumber, result.finishReason, this.modelStepStarted)
    return next
  }

  /** A step's tool calls: synchronous when the calls and the commits were (a synchronous tool on the memory stores). */
  toolStep(): MaybePromise<Next> {
    this.checkAbort()
    const started = performance.now()
    const { state, init, deps } = this.run
    const executing = deps.tools.executeCallsNow({
      runId: state.runId,
      sessionId: state.sessionId,
      step: state.step,
      calls: state.pending,
      scope: init.scope,
      policy: deps.policy,
      executions: this.journal.journal,
      artifacts: deps.stores.artifacts,
      runtime: init.runtime,
      signal: init.signal,
      emit: this.emit,
      nested: this.nested,
      contextMaxOutputBytes: this.requests.toolOutputCap(),
    })
    return isPending(executing) ? executing.then((result) => this.toolsDone(result, state.step, started)) : this.toolsDone(executing, state.step, started)
  }

  toolsDone({ outcomes, violation }: ExecuteCallsResult, step: number, started: number): MaybePromise<Next> {
    this.journal.clearRunning()
    this.journal.answerCalls(outcomes)
    let executed = 0
    for (const outcome of outcomes) if (outcome.executed) executed++
    // The calls are answered (their results queued) before anything that may throw: a failure below must not
    // answer them a second time.
    let next = this.advance({ type: 'tools', executed })
    if (violation) next = this.advance({ type: 'violation', message: violation })
    this.applyHandoffsOf(outcomes)
    this.stepFinished(step, 'tool-calls', started)
    if (next.action !== 'call-model') return next
    const saving = this.commit.saveSnapshot()
    return saving ? saving.then(() => next) : next
  }

  /** A successful handoff call gives the rest of the run to its target agent (see applyHandoffs). */
  applyHandoffsOf(outcomes: Array<Pick<ToolCallOutcome, 'callId' | 'toolName' | 'isError'>>): void {
    if (applyHandoffs(this.run, outcomes, this.emit)) this.modelOptions = undefined
  }

  /** Who answered the step's model call (its provider's response metadata), told by the step's `step.finished`. */

  stepFinished(step: number, finishReason: string, started: number): void {
    const response = this.response
    this.response = undefined
    this.events.emitStepFinished(step, this.run.state.usage, finishReason, performance.now() - started, response)
  }

  /**
   * Rolls the state forward over entries this run wrote after its snapshot (a crash between a write and the
   * next snapshot): the session log is the truth, the snapshot only a shortcut.
   */
  async replay(entries: SessionEntry[]): Promise<void> {
    const run = this.run
    for (const entry of entries) {
      if (entry.runId !== run.runId || entry.seq <= run.state.lastSeq || entry.kind !== 'message') continue
      const { message } = entry
      run.messages.push(message)
      if (message.role === 'assistant' && run.state.phase === 'model') {
        const calls: PendingCall[] = []
        let text = ''
        for (const part of message.content) {
          if (part.type === 'text') text += part.text
          if (part.type === 'tool-call') calls.push({ callId: part.toolCallId, toolName: part.toolName, args: part.args })
        }
        this.advance({ type: 'model', finishReason: calls.length ? 'tool-calls' : 'stop', text, toolCalls: await markApprovals(run, calls), usage: undefined })
      } else if (message.role === 'tool' && run.state.phase === 'tools') {
        this.applyHandoffsOf(message.content.map((part) => ({ callId: part.toolCallId, toolName: part.toolName, isError: part.isError === true })))
        const answered = new Set(message.content.map((part) => part.toolCallId))
        this.advance({ type: 'tools', executed: run.state.pending.filter((call) => answered.has(call.callId)).length })
      }
      run.state = withState(run.state, { lastSeq: entry.seq })
    }
  }

  async suspend(): Promise<RunOutput> {
    const { state } = this.run
    for (const call of state.pending) {
      if (call.approval === 'required')
        this.emit({ type: 'approval.requested', step: state.step, callId: call.callId, toolName: call.toolName, args: call.args })
    }
    return this.commit.end('awaiting_approval', {
      status: 'suspended',
      finishReason: 'awaiting_approval',
      step: state.step,
      usage: state.usage,
      lease: undefined,
    })
  }

  async finish(reason: FinishReason, unanswered: PendingCall[]): Promise<RunOutput> {
    this.journal.closeCalls(unanswered, `the run ended (${reason})`)
    return this.commit.end(reason, this.commit.endPatch(reason))
  }

  /** Any exception: map aborts to cancelled / timeout, everything else to error; best-effort persistence. */
  async fail(error: unknown): Promise<RunOutput> {
    const run = this.run
    if (this.commit.ended) return this.commit.output(run.state.finishReason ?? 'error')
    const { signal } = run.init
    const { reason: abort } = signal
    if (signal.aborted && SpindleError.isInstance(abort) && abort.code === 'lease_lost') return this.commit.abandon(abort)
    const reason = signal.aborted ? abortReason(signal.reason) : undefined
    const raw = runErrorOf(error)
    const serialized = run.deps.redactor ? run.deps.redactor.redactError(raw) : raw
    const result = transition(run.state, reason ? { type: 'aborted', reason } : { type: 'error', error: serialized }, run.limits)
    run.state = reason === 'timeout' ? withState(result.state, { error: runErrorOf(signal.reason) }) : result.state
    const finalReason = result.next.action === 'finish' ? result.next.reason : 'error'
    try {
      const unanswered = result.next.action === 'finish' ? result.next.unanswered : []
      await this.journal.closeCallsFromJournal(
        unanswered,
        finalReason === 'error' ? 'the run failed' : `the run was ${finalReason === 'timeout' ? 'timed out' : 'cancelled'}`,
      )
      await this.commit.saveSnapshot()
    } catch {
      // The store itself may be what failed: the terminal event is still emitted below.
    }
    // Same as above: a run left `running` is found by recover().
    return this.commit.writeEnd(finalReason, this.commit.endPatch(finalReason))
  }
}

/** How long a model call may go on after its run was aborted before the run is ended without it. */
const modelAbortGraceMs = 250

function abortReason(reason: unknown): 'cancelled' | 'timeout' {
  return TimeoutError.isInstance(reason) || (SpindleError.isInstance(reason) && reason.code === 'timeout') ? 'timeout' : 'cancelled'
}

const methods = RunExecution.prototype

/** One execution of a run starting from `init` with the runtime's `deps` (what `new RunExecution(…)` returns). */
export function runExecution(deps: RunExecutionDeps, init: RunExecutionInit): RunExecution {
  const run = runContext(deps, init)
  const events = runEvents(run)
  const commit = runCommit(run, events)
  return {
    run,
    events,
    commit,
    journal: runJournal(run, commit),
    requests: modelRequestBuilder(run, events, commit),
    nested: { agentRuntime: deps.agentRuntime, parentRunId: init.state.runId, forward: events.forwardNested },
    emit: events.emit,
    emitDelta: events.emitDelta,
    inModelCall: false,
    forced: undefined,
    modelOptions: undefined,
    modelStepNumber: 0,
    modelStepStarted: -0,
    response: undefined,
    execute: methods.execute,
    endWhenModelHangs: methods.endWhenModelHangs,
    open: methods.open,
    loop: methods.loop,
    advance: methods.advance,
    checkAbort: methods.checkAbort,
    modelCallOptions: methods.modelCallOptions,
    beginModelStep: methods.beginModelStep,
    afterModelError: methods.afterModelError,
    endModelStep: methods.endModelStep,
    modelAnswered: methods.modelAnswered,
    toolStep: methods.toolStep,
    toolsDone: methods.toolsDone,
    applyHandoffsOf: methods.applyHandoffsOf,
    stepFinished: methods.stepFinished,
    replay: methods.replay,
    suspend: methods.suspend,
    finish: methods.finish,
    fail: methods.fail,
  }
}

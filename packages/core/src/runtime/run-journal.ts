// The tool-call journal of a run, as the ToolRuntime sees it, and the answers every call of the history gets: the
// keys started and not finished in the current step, the journal's start and finish writes, and the tool results
// appended (a call the run left unexecuted, or interrupted, is answered from the journal).
import type { ExecutionOutcome, NewExecution } from '../spec/execution-store.js'
import type { ToolResultPart } from '../spec/messages.js'
import type { PendingCall } from '../spec/run-state.js'
import type { StoreWrite, StoreWriteResult } from '../spec/store-batch.js'
import type { Stores } from '../spec/stores.js'
import { boundExecutionOutcome } from '../tools/journal-text.js'
import type { ToolCallOutcome, ToolJournal } from '../tools/tool-step.js'
import { capJournaledOutput } from '../tools/tool-output-cap.js'
import { sizedArray } from '../util/sized-array.js'
import { isPending } from '../util/fast-path.js'
import type { RunCommit } from './run-commit.js'
import type { RunContext } from './run-context.js'

type Started = Awaited<ReturnType<ToolJournal['start']>>

/**
 * The run's tool-call journal and the results every call of its history gets. Built by `runJournal()` as one literal,
 * its methods included: a class instance's hidden class dies at a full GC when no run is alive, and the code compiled
 * against it (see util/fast-path.ts).
 */
export class RunJournal {
  declare readonly run: RunContext
  declare readonly commit: RunCommit
  /**
   * Journal keys started and not finished in the current tool step: slots `0 … runningCount - 1` of an array
   * kept from step to step (a Set's delete and clear rebuilt its table: about 130 bytes a step).
   */
  declare readonly running: string[]
  declare runningCount: number
  /**
   * The journal the ToolRuntime writes to. A start is committed at once, with the writes queued before it (the
   * assistant message that asked for the call: one commit). A finish is committed at once while another call of
   * the step still runs; the last one goes with the step's next commit (the next call's start, or the tool results
   * and the snapshot), which follows it without any wait in between.
   */
  declare readonly journal: ToolJournal

  /** Synchronous when the writer commits synchronously: the tool then runs without an async round. */
  startNow(execution: NewExecution): ReturnType<ToolJournal['start']> {
    const committed = this.run.writer.commitNow([{ type: 'execution.start', execution }])
    return isPending(committed) ? committed.then(([result]) => this.started(execution, result)) : this.started(execution, committed[0])
  }

  started(execution: NewExecution, result: StoreWriteResult | undefined): Started {
    const started = result as Started
    if (started.record.status === 'started' && this.runningIndex(execution.key) < 0) {
      if (this.runningCount === this.running.length) this.running.push(execution.key)
      else this.running[this.runningCount] = execution.key
      this.runningCount++
    }
    return started
  }

  runningIndex(key: string): number {
    for (let index = 0; index < this.runningCount; index++) if (this.running[index] === key) return index
    return -1
  }

  /** Forgets the keys of the step that ended. */
  clearRunning(): void {
    for (let index = 0; index < this.runningCount; index++) this.running[index] = undefined as never
    this.runningCount = 0
  }

  finishNow(key: string, outcome: ExecutionOutcome): ReturnType<ToolJournal['finish']> {
    const index = this.runningIndex(key)
    if (index >= 0) {
      const last = --this.runningCount
      this.running[index] = this.running[last]!
      this.running[last] = undefined as never
    }
    // Every journal write of a run passes here: its error text is bounded for any store.
    const write: StoreWrite = { type: 'execution.finish', key, outcome: boundExecutionOutcome(outcome) }
    const { writer } = this.run
    if (this.runningCount || !writer.batch) return writer.commit([write]) as ReturnType<ToolJournal['finish']>
    writer.defer(write)
  }

  /** Queues the step's tool results (one tool message) for the step's next commit. */
  answerCalls(outcomes: ToolCallOutcome[]): void {
    if (!outcomes.length) return
    const content = sizedArray<ToolResultPart>(outcomes.length)
    for (let index = 0; index < outcomes.length; index++) {
      const outcome = outcomes[index]!
      content[index] = outcome.isError
        ? { type: 'tool-result', toolCallId: outcome.callId, toolName: outcome.toolName, result: outcome.result, isError: true }
        : { type: 'tool-result', toolCallId: outcome.callId, toolName: outcome.toolName, result: outcome.result }
    }
    this.commit.appendWithNextCommit([{ kind: 'message', message: { role: 'tool', content }, runId: this.run.runId }])
  }

  /** Every tool call in the history gets a result, even when the run ends before executing it. */
  closeCalls(calls: PendingCall[], reason: string): void {
    if (!calls.length) return
    this.answerCalls(
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
  async closeCallsFromJournal(calls: PendingCall[], reason: string): Promise<void> {
    if (!calls.length) return
    const run = this.run
    try {
      await run.writer.commit()
    } catch {
      // The failure path goes on: the journal read below may still answer.
    }
    const outcomes: ToolCallOutcome[] = []
    for (const call of calls) {
      let record: Awaited<ReturnType<Stores['executions']['get']>>
      try {
        record = await run.deps.stores.executions.get(`${run.runId}:${run.state.step}:${call.callId}`)
      } catch {
        record = undefined
      }
      const base = { callId: call.callId, toolName: call.toolName, durationMs: 0, reused: true, executed: false }
      if (record?.status === 'succeeded') outcomes.push({ ...base, result: capJournaledOutput(record.result ?? null, run.deps.policy), isError: false })
      else if (record?.status === 'failed') outcomes.push({ ...base, result: { error: record.error?.message ?? 'failed' }, isError: true })
      else if (record)
        outcomes.push({
          ...base,
          result: { error: `Interrupted: ${reason} while this call ran; its effect is unknown. Check before retrying.` },
          isError: true,
        })
      else outcomes.push({ ...base, reused: false, result: { error: `Not executed: ${reason}.` }, isError: true })
    }
    this.answerCalls(outcomes)
  }
}

const methods = RunJournal.prototype

/** The journal of the run `run`, committing through `commit`. */
export function runJournal(run: RunContext, commit: RunCommit): RunJournal {
  const journal: RunJournal = {
    run,
    commit,
    running: [],
    runningCount: 0,
    journal: undefined as never,
    startNow: methods.startNow,
    started: methods.started,
    runningIndex: methods.runningIndex,
    clearRunning: methods.clearRunning,
    finishNow: methods.finishNow,
    answerCalls: methods.answerCalls,
    closeCalls: methods.closeCalls,
    closeCallsFromJournal: methods.closeCallsFromJournal,
  }
  ;(journal as { journal: ToolJournal }).journal = { start: journal.startNow.bind(journal), finish: journal.finishNow.bind(journal) }
  return journal
}

// What a run writes and when: its session appends (now, or with the step's next commit), its snapshots with the
// events since the last one, and its end (the terminal event, the last snapshot and the run record's patch).
import { SpindleError } from '../errors/spindle-error.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { ModelMessage } from '../spec/messages.js'
import type { FinishReason, RunPatch } from '../spec/run-store.js'
import { runStatusOf } from '../spec/run-status.js'
import type { SessionEntry, SessionEntryInput } from '../spec/session-store.js'
import type { RunSnapshot } from '../spec/snapshot-store.js'
import type { StoreWrite, StoreWriteResult } from '../spec/store-batch.js'
import { isPending, type MaybePromise } from '../util/fast-path.js'
import type { RunOutput } from './run-request.js'
import type { RunContext } from './run-context.js'
import type { RunEvents } from './run-events.js'
import { copyState, type RunState, withState } from './run-state.js'
import { runErrorOf } from './run-error-of.js'

/** A run's end, committed with its last snapshot: the terminal event (not yet stamped) and the run record's patch. */
export interface RunEnd {
  event: AgentEventPayload
  patch: RunPatch
}

/**
 * A run's writes: session appends, snapshots with the events since the last one, and the run's end. Built by
 * `runCommit()` as one literal, its methods included: a class instance's hidden class dies at a full GC when no run
 * is alive, and the code compiled against it (see util/fast-path.ts).
 */
export class RunCommit {
  /** Set once the run's terminal event is emitted (or the run abandoned): nothing is ended twice. */
  declare ended: boolean
  declare readonly run: RunContext
  declare readonly events: RunEvents
  /** What a queued append does once written: the window and the run's messages take its entries. */
  declare readonly onAppended: (stored: SessionEntry[]) => void
  /** The state object the last snapshot was given: never changed afterwards (a store may keep it as it is). */
  declare savedState: RunState | undefined
  /** The seq the run's input got, once written. */
  declare inputSeq: number | undefined

  /** Appends to the session now (after the queued writes). */
  async appendNow(entries: SessionEntryInput[]): Promise<void> {
    const [stored] = await this.run.writer.commit([this.appendWrite(entries)])
    this.takeAppended(stored as SessionEntry[])
  }

  /** Queues an append for the step's next commit; the window and the run's messages take it once written. */
  appendWithNextCommit(entries: SessionEntryInput[]): void {
    this.run.writer.defer(this.appendWrite(entries), this.onAppended)
  }

  /** Every append write is built with an `expectedLastSeq` field, set by a snapshot commit (one object shape). */
  appendWrite(entries: SessionEntryInput[]): Extract<StoreWrite, { type: 'session.append' }> {
    return { type: 'session.append', sessionId: this.run.sessionId, entries, fence: this.run.init.lease.token, expectedLastSeq: undefined }
  }

  takeAppended(stored: SessionEntry[]): void {
    this.run.init.window.add(stored)
    for (const entry of stored) if (entry.kind === 'message') this.run.messages.push(entry.message)
  }

  /** Appends the run's input to the session and records where the run starts in the log. */
  async appendInput(messages: ModelMessage[]): Promise<void> {
    const run = this.run
    const entries = messages.map((message) => ({ kind: 'message' as const, message, runId: run.runId }))
    if (run.writer.batch && entries.length && !run.writer.queuedCount) {
      // Committed with the checkpoint that follows (one commit), at the seqs the snapshot predicts; the
      // conditional append makes a wrong prediction fail that commit, and `inputSeq` then corrects it.
      const firstSeq = run.init.window.lastSeq + 1
      run.state = withState(run.state, { firstSeq, lastSeq: firstSeq + entries.length - 1 })
      run.writer.defer(this.appendWrite(entries), (stored) => {
        this.inputSeq = stored[0]?.seq
        this.takeAppended(stored)
      })
      return
    }
    const before = run.messages.length
    await this.appendNow(entries)
    if (run.messages.length > before) {
      const lastSeq = run.init.window.lastSeq
      run.state = withState(run.state, { firstSeq: lastSeq - messages.length + 1, lastSeq })
    }
  }

  /** Saves a snapshot: undefined when it was committed synchronously (a batch with `writeSync`), else a promise. */
  saveSnapshot(): Promise<void> | undefined {
    return this.run.writer.batch ? this.saveSnapshotBatched() : this.saveSnapshotUnbatched()
  }

  async saveSnapshotUnbatched(): Promise<void> {
    const run = this.run
    // One call per write. Events first: a crash between the snapshot and its event then loses only
    // `snapshot.saved`, whose seq a resume takes again (the event log stays gap-free).
    await run.writer.commit()
    await this.flushEvents()
    run.state = withState(run.state, { eventSeq: this.events.seq + 1, lastSeq: run.init.window.lastSeq })
    const { seqs } = this.events
    seqs.reserve(run.state)
    // The snapshot.saved event takes the seq reserved above, so a resume continues after it.
    await run.writer.commit([{ type: 'snapshot.save', snapshot: this.snapshot() }]).then(
      () => seqs.committed(),
      (error: unknown) => {
        seqs.failed()
        throw error
      },
    )
    this.events.emit({ type: 'snapshot.saved', step: run.state.step, version: run.state.step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    // The run record is not rewritten per step: the snapshot holds step and usage, the heartbeat renews the lease.
    await this.flushEvents()
  }

  /**
   * One atomic commit: the queued writes (messages, the last journal finish), the events and the snapshot with
   * its own event. The snapshot refers to the seqs the queued appends will get; each append carries the
   * `lastSeq` it expects, so another writer appending in between fails the whole commit instead of leaving a
   * snapshot that points at the wrong entries — the appends are then written alone, and the snapshot after.
   * Returns undefined when the batch committed synchronously.
   */
  saveSnapshotBatched(end?: RunEnd): Promise<void> | undefined {
    const run = this.run
    const { writer } = run
    let lastSeq = run.init.window.lastSeq
    for (let index = 0; index < writer.queuedCount; index++) {
      const write = writer.queuedWrite(index)
      if (write.type !== 'session.append') continue
      write.expectedLastSeq = lastSeq
      lastSeq += write.entries.length
    }
    // States are values: one a snapshot was given is copied. A state no snapshot has seen yet (the transition's
    // own copy, held only by this run) takes the seqs in place.
    const state = run.state === this.savedState ? copyState(run.state) : run.state
    state.eventSeq = this.events.seq + 1
    state.lastSeq = lastSeq
    this.events.seqs.reserve(state)
    run.state = state
    this.events.emit({ type: 'snapshot.saved', step: state.step, version: state.step, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    const events = this.events.buffer.take()
    // The run's end: its terminal event is logged by this commit and delivered only once it is written.
    const terminal = end ? this.events.stamp(end.event) : undefined
    if (terminal) events.push(terminal)
    let committed: MaybePromise<StoreWriteResult[]>
    try {
      committed = writer.commitNow(this.snapshotWrites(events, end), true, false)
    } catch (error) {
      // A synchronous failure wrote nothing: the same handling as an asynchronous one (a sequence conflict is retried).
      committed = Promise.reject(error)
    }
    if (isPending(committed)) return this.snapshotSettled(committed, events, end, terminal)
    this.events.seqs.committed()
    if (terminal) this.endDelivered(terminal)
    return undefined
  }

  /** The writes of a snapshot commit (after the queued ones): its events, the snapshot, and at the run's end its record. */
  snapshotWrites(events: AgentEvent[], end: RunEnd | undefined): StoreWrite[] {
    const { runId } = this.run
    const list: StoreWrite[] = [
      { type: 'run.events', runId, events },
      { type: 'snapshot.save', snapshot: this.snapshot() },
    ]
    if (end) list.push({ type: 'run.update', runId, patch: end.patch })
    return list
  }

  async snapshotSettled(committing: Promise<unknown>, events: AgentEvent[], end: RunEnd | undefined, terminal: AgentEvent | undefined): Promise<void> {
    const run = this.run
    try {
      try {
        await committing
      } catch (error) {
        if (!SpindleError.isInstance(error) || error.code !== 'sequence_conflict') throw error
        for (const write of run.writer.queued()) if (write.type === 'session.append') write.expectedLastSeq = undefined
        await run.writer.commit([], true)
        run.state = withState(run.state, { lastSeq: run.init.window.lastSeq, firstSeq: this.inputSeq ?? run.state.firstSeq })
        await run.writer.commit(this.snapshotWrites(events, end))
      }
    } catch (error) {
      // A failed batch wrote nothing: its events go back in front of the buffer, so the commit that follows (the
      // run's failure path) logs them and the event log stays gap-free. An undelivered terminal event is taken
      // back with its seq: the failure path ends the run with its own.
      this.events.seqs.failed()
      if (terminal) {
        events.pop()
        this.events.seq--
      }
      this.events.buffer.restore(events)
      throw error
    }
    this.events.seqs.committed()
    if (terminal) this.endDelivered(terminal)
  }

  /** The run's terminal event, once the commit that logs it is written. */
  endDelivered(terminal: AgentEvent): void {
    this.ended = true
    this.events.deliver(terminal)
    this.events.seqs.releaseAll()
  }

  snapshot(): RunSnapshot {
    const run = this.run
    const { state } = run
    this.savedState = state
    // The answer so far is an output like `run.finished`'s text: stored redacted. A resume rebuilds it from the
    // session log (`answerText`), which keeps what the model wrote.
    const { redactor } = run.deps
    const text = redactor && state.text ? redactor.redact(state.text) : state.text
    const stored = text === state.text ? state : withState(state, { text })
    const snapshot = { runId: run.runId, sessionId: run.sessionId, version: state.step, state: stored as never, createdAt: Date.now() }
    this.events.seqs.built(snapshot)
    return snapshot
  }

  /** Writes the buffered events to the run's log (put back in front of the buffer when the write fails). */
  async flushEvents(): Promise<void> {
    const { buffer } = this.events
    if (!buffer.length) return
    const events = buffer.take()
    try {
      await this.run.writer.commit([{ type: 'run.events', runId: this.run.runId, events }])
    } catch (error) {
      buffer.restore(events)
      throw error
    }
  }

  /**
   * Saves the last snapshot and ends the run. With a shared batch that is one commit (the queued writes, the
   * snapshot, the events with the terminal one, and the run's end): one commit fewer per run than a snapshot
   * then an end, and the end is as atomic as the rest. Without one, the snapshot is saved, then `writeEnd`.
   */
  async end(reason: FinishReason, patch: RunPatch): Promise<RunOutput> {
    if (!this.run.writer.batch) {
      await this.saveSnapshot()
      return this.writeEnd(reason, patch)
    }
    const output = this.output(reason)
    const saving = this.saveSnapshotBatched({ event: this.terminalPayload(reason, output), patch })
    if (saving) await saving
    return output
  }

  /** The one terminal event of a run that ends with `reason`. */
  terminalPayload(reason: FinishReason, output: RunOutput): AgentEventPayload {
    const { error } = this.run.state
    return reason === 'error'
      ? { type: 'run.failed', finishReason: 'error', error: error ?? { code: 'error', message: 'failed' }, usage: output.usage, steps: output.steps }
      : { type: 'run.finished', finishReason: reason, text: output.text, usage: output.usage, steps: output.steps, ...(error ? { error } : {}) }
  }

  /** The run record's patch at the run's end. */
  endPatch(reason: FinishReason): RunPatch {
    const { state } = this.run
    return {
      status: runStatusOf(reason),
      finishReason: reason,
      step: state.step,
      usage: state.usage,
      finishedAt: Date.now(),
      lease: undefined,
      ...(state.error ? { error: state.error } : {}),
    }
  }

  /**
   * The session lease was lost: another holder owns the run now (and will finish it). Nothing is written —
   * the store would refuse the stale fence anyway — and only this execution's own stream is told.
   */
  abandon(error: SpindleError): RunOutput {
    this.ended = true
    this.events.seqs.dropHeld()
    const run = this.run
    const output = { ...this.output('error'), error: runErrorOf(error) }
    const event = {
      type: 'run.failed',
      finishReason: 'error',
      error: output.error,
      usage: output.usage,
      steps: output.steps,
    } as AgentEventPayload as AgentEvent
    Object.assign(event, { runId: run.runId, sessionId: run.sessionId, seq: this.events.seq + 1, timestamp: Date.now() })
    run.init.channel?.push(event)
    return output
  }

  /**
   * Emits the one terminal event and flushes the log, then records the end on the run (`end`): a crash in
   * between leaves a logged end that `resume()` records, never an ended run whose log lacks its end.
   */
  async writeEnd(reason: FinishReason, end?: RunPatch): Promise<RunOutput> {
    this.ended = true
    const run = this.run
    const { writer } = run
    const output = this.output(reason)
    this.events.emit(this.terminalPayload(reason, output))
    const events = this.events.buffer.take()
    const writes: StoreWrite[] = events.length ? [{ type: 'run.events', runId: run.runId, events }] : []
    // When the record's update fails the run stays `running`: recover() (or a queue's retry of the job, see
    // `endNotRecorded`) resumes it, finds the logged end and records it.
    if (end) writes.push({ type: 'run.update', runId: run.runId, patch: end })
    let recorded = end === undefined
    if (writer.batch) {
      recorded = await writer.commit(writes).then(
        () => true,
        // A store that refuses the data itself (not a transient failure) would refuse it again on every resume: the
        // run would stay `running` for ever. The record's end alone is written then; the events are lost.
        (error: unknown) =>
          end !== undefined && SpindleError.isInstance(error) && !error.isRetryable
            ? writer.commit([writes[writes.length - 1]!]).then(
                () => true,
                () => false,
              )
            : false,
      )
    } else {
      for (const write of writes) {
        const written = await writer.commit([write]).then(
          () => true,
          () => false,
        )
        if (write.type === 'run.update') recorded = written
      }
    }
    this.events.seqs.releaseAll()
    if (!recorded) unrecordedEnds.add(output)
    return output
  }

  /** The run's output as it stands. */
  output(reason: FinishReason): RunOutput {
    const run = this.run
    const { state } = run
    return {
      runId: run.runId,
      sessionId: run.sessionId,
      finishReason: reason,
      text: state.text,
      messages: run.messages,
      steps: state.step,
      usage: state.usage,
      ...(state.error ? { error: state.error } : {}),
    }
  }
}

/** Outputs of runs whose end could not be written to their run record (the store failed at the last commit). */
const unrecordedEnds = new WeakSet<RunOutput>()

/**
 * True when `output` ended a run whose record could not be updated: the store still says `running`, and a
 * `resume()` (a queue's retry of the job, or `recover()`) must record the end.
 */
export function endNotRecorded(output: RunOutput): boolean {
  return unrecordedEnds.has(output)
}

const methods = RunCommit.prototype

/** The writes of the run `run`, logging the events of `events`. */
export function runCommit(run: RunContext, events: RunEvents): RunCommit {
  const commit: RunCommit = {
    ended: false,
    run,
    events,
    onAppended: undefined as never,
    savedState: undefined,
    inputSeq: undefined,
    appendNow: methods.appendNow,
    appendWithNextCommit: methods.appendWithNextCommit,
    appendWrite: methods.appendWrite,
    takeAppended: methods.takeAppended,
    appendInput: methods.appendInput,
    saveSnapshot: methods.saveSnapshot,
    saveSnapshotUnbatched: methods.saveSnapshotUnbatched,
    saveSnapshotBatched: methods.saveSnapshotBatched,
    snapshotWrites: methods.snapshotWrites,
    snapshotSettled: methods.snapshotSettled,
    endDelivered: methods.endDelivered,
    snapshot: methods.snapshot,
    flushEvents: methods.flushEvents,
    end: methods.end,
    terminalPayload: methods.terminalPayload,
    endPatch: methods.endPatch,
    abandon: methods.abandon,
    writeEnd: methods.writeEnd,
    output: methods.output,
  }
  ;(commit as { onAppended: RunCommit['onAppended'] }).onAppended = commit.takeAppended.bind(commit)
  return commit
}

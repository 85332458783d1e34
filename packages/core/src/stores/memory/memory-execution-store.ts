// In-memory ExecutionStore: the tool-call journal (started → succeeded / failed / cancelled, never overwritten).
import { cloneValue } from '../clone-value.js'
import { NotFoundError } from '../../errors/errors.js'
import type { ExecutionOutcome, ExecutionRecord, ExecutionStore, NewExecution } from '../../spec/execution-store.js'
import type { StoreBatch, StoreWrite, StoreWriteResult } from '../../spec/store-batch.js'
import { applyWrite, type UndoLog, undoWrite } from './memory-write.js'
import { countRecords, evictRun } from './memory-retention.js'

/**
 * The default ExecutionStore: everything lives in this instance's maps; values are deep-copied in and out.
 *
 * @example
 * const journal = new MemoryExecutionStore()
 * const { created } = await journal.start({ key: 'run:1:call', runId: 'run', step: 1, callId: 'call', toolName: 'echo', args: {} })
 */
export class MemoryExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  /** Set by `memoryStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch
  readonly #records = new Map<string, ExecutionRecord>()
  readonly #byRun = new Map<string, string[]>()

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    return this[applyWrite]({ type: 'execution.start', execution }) as { record: ExecutionRecord; created: boolean }
  }

  async finish(key: string, outcome: ExecutionOutcome): Promise<ExecutionRecord> {
    return this[applyWrite]({ type: 'execution.finish', key, outcome }) as ExecutionRecord
  }

  /** Starts or finishes an execution (one write of a batch, or the method itself); its undo restores what was. */
  [applyWrite](write: StoreWrite, resultWanted = true, undo?: UndoLog): StoreWriteResult {
    if (write.type === 'execution.start') {
      const { execution } = write
      const existing = this.#records.get(execution.key)
      if (existing !== undefined) {
        undo?.record(this, write, existing, existing.attempt)
        if (existing.status === 'started') existing.attempt += 1
        return resultWanted ? { record: cloneValue(existing), created: false } : undefined
      }
      const startedAt = Date.now()
      const { key, runId, step, callId, toolName } = execution
      const record: ExecutionRecord = { key, runId, step, callId, toolName, args: cloneValue(execution.args), status: 'started', attempt: 1, startedAt }
      this.#records.set(record.key, record)
      const keys = this.#byRun.get(record.runId)
      if (keys === undefined) this.#byRun.set(record.runId, [record.key])
      else keys.push(record.key)
      undo?.record(this, write, undefined, undefined, record)
      // The caller's record holds its own args object, never the stored copy.
      return resultWanted
        ? { record: { key, runId, step, callId, toolName, args: execution.args, status: 'started' as const, attempt: 1, startedAt }, created: true }
        : undefined
    }
    if (write.type !== 'execution.finish') throw new TypeError(`[spindle/store-memory] the execution store cannot apply "${write.type}"`)
    const { key, outcome } = write
    const record = this.#records.get(key)
    if (record === undefined) throw new NotFoundError(`[spindle/store-memory] Execution "${key}" was never started; call start before finish`)
    if (record.status !== 'started') return resultWanted ? cloneValue(record) : undefined
    const finished = finishedRecord(record, cloneValue(outcome), Date.now())
    this.#records.set(key, finished)
    undo?.record(this, write, record)
    return resultWanted ? cloneValue(finished) : undefined
  }

  /**
   * Takes a start or finish back (the newest write applied to that execution): a new record is removed, a
   * repeated start gets its attempt back, a finished record its started one.
   */
  [undoWrite](write: StoreWrite, existing: unknown, attempt: unknown, created: unknown): void {
    if (write.type === 'execution.finish') {
      const started = existing as ExecutionRecord
      this.#records.set(started.key, started)
      return
    }
    if (existing !== undefined) {
      ;(existing as ExecutionRecord).attempt = attempt as number
      return
    }
    const { key, runId } = created as ExecutionRecord
    this.#records.delete(key)
    const keys = this.#byRun.get(runId)!
    keys.pop()
    if (keys.length === 0) this.#byRun.delete(runId)
  }

  /** Removes the run's journal (retention). */
  [evictRun](runId: string): void {
    const keys = this.#byRun.get(runId)
    if (keys === undefined) return
    this.#byRun.delete(runId)
    for (const key of keys) this.#records.delete(key)
  }

  /** Journal records. */
  [countRecords](): { executions: number } {
    return { executions: this.#records.size }
  }

  async get(key: string): Promise<ExecutionRecord | undefined> {
    const record = this.#records.get(key)
    return record === undefined ? undefined : cloneValue(record)
  }

  async listByRun(runId: string): Promise<ExecutionRecord[]> {
    const keys = this.#byRun.get(runId) ?? []
    return keys.map((key) => cloneValue(this.#records.get(key)!))
  }
}

/**
 * The record of a finished execution, built whole in one literal (the started record is kept for an undo): fields
 * added to the stored record one by one gave every journal record an out-of-object property array, which the
 * memory stores kept for the life of the log.
 */
function finishedRecord(started: ExecutionRecord, outcome: ExecutionOutcome, finishedAt: number): ExecutionRecord {
  const { key, runId, step, callId, toolName, args, attempt, startedAt } = started
  const { status, result, error } = outcome
  if (error === undefined) {
    return result === undefined
      ? { key, runId, step, callId, toolName, args, status, attempt, startedAt, finishedAt }
      : { key, runId, step, callId, toolName, args, status, result, attempt, startedAt, finishedAt }
  }
  return result === undefined
    ? { key, runId, step, callId, toolName, args, status, error, attempt, startedAt, finishedAt }
    : { key, runId, step, callId, toolName, args, status, result, error, attempt, startedAt, finishedAt }
}

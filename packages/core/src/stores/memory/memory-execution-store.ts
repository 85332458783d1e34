// In-memory ExecutionStore: the tool-call journal (started → succeeded / failed / cancelled, never overwritten).
import { cloneValue } from '../clone-value.js'
import { NotFoundError } from '../../errors/errors.js'
import type { ExecutionOutcome, ExecutionRecord, ExecutionStore, NewExecution } from '../../spec/execution-store.js'
import type { StoreBatch, StoreWrite } from '../../spec/store-batch.js'
import { type AppliedWrite, applyWrite } from './memory-write.js'

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
    return this[applyWrite]({ type: 'execution.start', execution }).result as { record: ExecutionRecord; created: boolean }
  }

  async finish(key: string, outcome: ExecutionOutcome): Promise<ExecutionRecord> {
    return this[applyWrite]({ type: 'execution.finish', key, outcome }).result as ExecutionRecord
  }

  /** Starts or finishes an execution (one write of a batch, or the method itself); the undo restores what was. */
  [applyWrite](write: StoreWrite, resultWanted = true): AppliedWrite {
    if (write.type === 'execution.start') {
      const { execution } = write
      const existing = this.#records.get(execution.key)
      if (existing !== undefined) {
        const attempt = existing.attempt
        if (existing.status === 'started') existing.attempt += 1
        return { result: resultWanted ? { record: cloneValue(existing), created: false } : undefined, undo: () => void (existing.attempt = attempt) }
      }
      const startedAt = Date.now()
      const { key, runId, step, callId, toolName } = execution
      const record: ExecutionRecord = { key, runId, step, callId, toolName, args: cloneValue(execution.args), status: 'started', attempt: 1, startedAt }
      this.#records.set(record.key, record)
      let keys = this.#byRun.get(record.runId)
      const createdList = keys === undefined
      if (keys === undefined) {
        keys = [record.key]
        this.#byRun.set(record.runId, keys)
      } else keys.push(record.key)
      // The caller's record holds its own args object, never the stored copy.
      const result = resultWanted ? { record: { key, runId, step, callId, toolName, args: execution.args, status: 'started' as const, attempt: 1, startedAt }, created: true } : undefined
      return {
        result,
        undo: () => {
          this.#records.delete(record.key)
          if (createdList) this.#byRun.delete(record.runId)
          else keys.pop()
        },
      }
    }
    if (write.type !== 'execution.finish') throw new TypeError(`[spindle/store-memory] the execution store cannot apply "${write.type}"`)
    const { key, outcome } = write
    const record = this.#records.get(key)
    if (record === undefined) throw new NotFoundError(`[spindle/store-memory] Execution "${key}" was never started; call start before finish`)
    if (record.status !== 'started') return { result: resultWanted ? cloneValue(record) : undefined, undo: () => {} }
    const finished = finishedRecord(record, cloneValue(outcome), Date.now())
    this.#records.set(key, finished)
    return {
      result: resultWanted ? cloneValue(finished) : undefined,
      undo: () => void this.#records.set(key, record),
    }
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

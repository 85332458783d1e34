// In-memory ExecutionStore: the tool-call journal (started → succeeded / failed / cancelled, never overwritten).
import { cloneValue } from '../clone-value.js'
import { NotFoundError } from '../../errors/errors.js'
import type { ExecutionRecord, ExecutionStatus, ExecutionStore, NewExecution } from '../../spec/execution-store.js'
import type { JsonValue } from '../../spec/json.js'

/**
 * The default ExecutionStore: everything lives in this instance's maps; values are deep-copied in and out.
 *
 * @example
 * const journal = new MemoryExecutionStore()
 * const { created } = await journal.start({ key: 'run:1:call', runId: 'run', step: 1, callId: 'call', toolName: 'echo', args: {} })
 */
export class MemoryExecutionStore implements ExecutionStore {
  readonly specificationVersion = 'v1' as const
  readonly #records = new Map<string, ExecutionRecord>()
  readonly #byRun = new Map<string, string[]>()

  async start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }> {
    const existing = this.#records.get(execution.key)
    if (existing !== undefined) {
      if (existing.status === 'started') existing.attempt += 1
      return { record: cloneValue(existing), created: false }
    }
    const record: ExecutionRecord = {
      ...cloneValue({
        key: execution.key,
        runId: execution.runId,
        step: execution.step,
        callId: execution.callId,
        toolName: execution.toolName,
        args: execution.args,
      }),
      status: 'started',
      attempt: 1,
      startedAt: Date.now(),
    }
    this.#records.set(record.key, record)
    const keys = this.#byRun.get(record.runId)
    if (keys === undefined) this.#byRun.set(record.runId, [record.key])
    else keys.push(record.key)
    return { record: cloneValue(record), created: true }
  }

  async finish(
    key: string,
    outcome: { status: Exclude<ExecutionStatus, 'started'>; result?: JsonValue; error?: { code: string; message: string } },
  ): Promise<ExecutionRecord> {
    const record = this.#records.get(key)
    if (record === undefined) throw new NotFoundError(`[spindle/store-memory] Execution "${key}" was never started; call start before finish`)
    if (record.status !== 'started') return cloneValue(record)
    const copy = cloneValue(outcome)
    record.status = copy.status
    if (copy.result !== undefined) record.result = copy.result
    if (copy.error !== undefined) record.error = copy.error
    record.finishedAt = Date.now()
    return cloneValue(record)
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

// ExecutionStore, spec v1: the tool-call journal that makes resume exactly-once for non-idempotent tools.
import type { JsonValue } from './json.js'

export type ExecutionStatus = 'started' | 'succeeded' | 'failed' | 'cancelled'

export interface ExecutionRecord {
  /** `${runId}:${step}:${callId}` — also passed to the tool as its idempotency key. */
  key: string
  runId: string
  step: number
  callId: string
  toolName: string
  args: JsonValue
  status: ExecutionStatus
  result?: JsonValue
  error?: { code: string; message: string }
  attempt: number
  startedAt: number
  finishedAt?: number
}

export type NewExecution = Pick<ExecutionRecord, 'key' | 'runId' | 'step' | 'callId' | 'toolName' | 'args'>

export interface ExecutionStore {
  readonly specificationVersion: 'v1'
  /**
   * Records `started`. When the key exists already, nothing is overwritten: a
   * terminal record is returned as is (`created: false`); a `started` one gets
   * its `attempt` incremented.
   */
  start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }>
  /** Moves a `started` record to a terminal status. A record already terminal is left unchanged and returned. */
  finish(
    key: string,
    outcome: { status: Exclude<ExecutionStatus, 'started'>; result?: JsonValue; error?: { code: string; message: string } },
  ): Promise<ExecutionRecord>
  get(key: string): Promise<ExecutionRecord | undefined>
  /** In start order. */
  listByRun(runId: string): Promise<ExecutionRecord[]>
}

// ExecutionStore, spec v1: the tool-call journal that makes resume exactly-once for non-idempotent tools.
import type { JsonValue } from './json.js'
import type { StoreBatch } from './store-batch.js'

/** A journaled tool call: `started` (its outcome unknown until it finishes), `succeeded`, `failed` or `cancelled`. */
export type ExecutionStatus = 'started' | 'succeeded' | 'failed' | 'cancelled'

/** One tool call in the execution journal: written `started` before the tool runs and finished after, so a resume knows what already happened. */
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

/** What `ExecutionStore.start` records before a tool runs. */
export type NewExecution = Pick<ExecutionRecord, 'key' | 'runId' | 'step' | 'callId' | 'toolName' | 'args'>

/** How a started execution ended. */
export interface ExecutionOutcome {
  status: Exclude<ExecutionStatus, 'started'>
  result?: JsonValue
  error?: { code: string; message: string }
}

/** Spec v1: the execution journal, keyed by the call's idempotency key (`runId:step:callId`). Check an implementation with `describeExecutionStore` from `@spindle/testing`. */
export interface ExecutionStore {
  readonly specificationVersion: 'v1'
  /** Optional: the backend's atomic multi-store writes (the same object on its sessions, runs, executions and snapshots stores). */
  readonly batch?: StoreBatch
  /**
   * Records `started`. When the key exists already, nothing is overwritten: a
   * terminal record is returned as is (`created: false`); a `started` one gets
   * its `attempt` incremented (`attempt` counts how many times a run reached the
   * call; a resume that finds it `started` then runs the tool again, or records
   * with `finish` what it decided instead).
   */
  start(execution: NewExecution): Promise<{ record: ExecutionRecord; created: boolean }>
  /** Moves a `started` record to a terminal status. A record already terminal is left unchanged and returned. */
  finish(key: string, outcome: ExecutionOutcome): Promise<ExecutionRecord>
  get(key: string): Promise<ExecutionRecord | undefined>
  /** In start order. */
  listByRun(runId: string): Promise<ExecutionRecord[]>
}

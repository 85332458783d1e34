// RunStore, spec v1: run records (status, step, finish reason, usage, lease) and each run's event log.
import type { StoreBatch } from './store-batch.js'
import type { AgentEvent } from './events.js'
import type { JsonObject, JsonValue } from './json.js'
import type { Usage } from './messages.js'

export type RunStatus = 'queued' | 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled' | 'interrupted'

export type FinishReason =
  | 'stop'
  | 'max_steps'
  | 'max_tool_calls'
  | 'budget'
  | 'timeout'
  | 'cancelled'
  | 'awaiting_approval'
  | 'policy'
  | 'length'
  | 'content_filter'
  | 'error'

export interface RunRecord {
  id: string
  sessionId: string
  status: RunStatus
  step: number
  finishReason?: FinishReason
  usage: Usage
  error?: { code: string; message: string }
  idempotencyKey?: string
  /** The serializable request: input, agent spec, model id, metadata. */
  request: JsonObject
  /** Who holds the run (a process / worker id) and until when. */
  lease?: { owner: string; expiresAt: number }
  metadata: JsonObject
  createdAt: number
  updatedAt: number
  startedAt?: number
  finishedAt?: number
}

/**
 * A run to create. `startedAt` and `lease` let a run that starts at once be created with them (one write instead
 * of a create and an update); a store written before they existed may ignore them, and the runtime then writes
 * them with `updateRun` when the returned record lacks them.
 */
export type NewRun = Pick<RunRecord, 'id' | 'sessionId' | 'request'> &
  Partial<Pick<RunRecord, 'status' | 'idempotencyKey' | 'metadata' | 'startedAt' | 'lease'>>

export type RunPatch = Partial<
  Pick<RunRecord, 'status' | 'step' | 'finishReason' | 'usage' | 'error' | 'lease' | 'metadata' | 'startedAt' | 'finishedAt'>
> & {
  /**
   * Present (with `undefined`): releases the run's idempotency key, so that a new run of the session may take it
   * (the runtime does this once the key is older than `policy.idempotencyTtlMs`). A key cannot be set by a patch.
   */
  idempotencyKey?: undefined
}

export interface ListRunsOptions {
  sessionId?: string
  status?: RunStatus | RunStatus[]
  limit?: number
  /** Runs created strictly before this time (newest first). */
  before?: number
}

export interface RunStore {
  readonly specificationVersion: 'v1'
  /** Optional: the backend's atomic multi-store writes (the same object on its sessions, runs, executions and snapshots stores). */
  readonly batch?: StoreBatch
  /** Throws `DuplicateError` when the id exists, or when `(sessionId, idempotencyKey)` is taken. */
  createRun(run: NewRun): Promise<RunRecord>
  getRun(id: string): Promise<RunRecord | undefined>
  findRunByIdempotencyKey(sessionId: string, key: string): Promise<RunRecord | undefined>
  /** Throws `NotFoundError` for an unknown run. `lease: undefined` in the patch leaves it; `null`-like clearing uses `{ lease: undefined }` semantics of a key present. */
  updateRun(id: string, patch: RunPatch): Promise<RunRecord>
  /** Newest first. */
  listRuns(options?: ListRunsOptions): Promise<RunRecord[]>
  /**
   * Appends events; each carries its per-run `seq`. Appending a `seq` already stored is ignored.
   *
   * The run record need not exist: the event log is keyed by run id alone, so events for a run id that was never
   * created here (its record may live in another store) are stored and listed like any others. Unlike `updateRun`,
   * this never throws `NotFoundError`; the memory, SQLite and PostgreSQL stores keep no foreign key from events to runs.
   */
  appendEvents(runId: string, events: AgentEvent[]): Promise<void>
  /** Events with `seq > after`, in order. */
  listEvents(runId: string, options?: { after?: number; limit?: number }): Promise<AgentEvent[]>
}

export type { JsonValue }

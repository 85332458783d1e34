// SessionGate, spec v1: one active run per session, with a fencing token per acquisition.
/** How `SessionGate.acquire` behaves when the session is held: wait in a bounded FIFO queue or fail at once. */
export interface AcquireOptions {
  /** Who acquires (a run id or worker id), for diagnostics. */
  owner: string
  /** `queue` waits FIFO behind the holder; `reject` fails at once with `SessionBusyError`. */
  onContention: 'queue' | 'reject'
  /** Most waiters allowed in the queue; one more is rejected. */
  maxQueue: number
  /** How long a waiter waits before `SessionBusyError`. */
  queueTimeoutMs: number
  signal?: AbortSignal
}

/** A held session: its fencing token (stores refuse writes with an older one) and a signal aborted when the lease is lost. */
export interface SessionLease {
  readonly sessionId: string
  readonly owner: string
  /** Strictly increasing per session across acquisitions (fencing token). */
  readonly token: number
  /** Aborted when the lease is lost (expired or taken over). */
  readonly signal: AbortSignal
  release(): Promise<void>
}

/** Who holds a session, with which token, and how many wait. */
export interface SessionGateState {
  sessionId: string
  holder?: string
  token?: number
  queued: number
}

/** Spec v1: one active run per session. `InProcessSessionGate` in one process, `PostgresSessionGate` across processes. */
export interface SessionGate {
  readonly specificationVersion: 'v1'
  acquire(sessionId: string, options: AcquireOptions): Promise<SessionLease>
  state(sessionId: string): Promise<SessionGateState>
}

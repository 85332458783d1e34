// SessionGate, spec v1: one active run per session, with a fencing token per acquisition.
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

export interface SessionLease {
  readonly sessionId: string
  readonly owner: string
  /** Strictly increasing per session across acquisitions (fencing token). */
  readonly token: number
  /** Aborted when the lease is lost (expired or taken over). */
  readonly signal: AbortSignal
  release(): Promise<void>
}

export interface SessionGateState {
  sessionId: string
  holder?: string
  token?: number
  queued: number
}

export interface SessionGate {
  readonly specificationVersion: 'v1'
  acquire(sessionId: string, options: AcquireOptions): Promise<SessionLease>
  state(sessionId: string): Promise<SessionGateState>
}

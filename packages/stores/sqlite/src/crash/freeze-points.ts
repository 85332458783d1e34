// Where the crash test's child can be frozen (and then killed): model stream, tool side effects, store writes.

export type FreezePoint =
  | 'model-stream'
  | 'tool-side-effect'
  | 'run-created'
  | 'session-appended'
  | 'journal-started'
  | 'journal-finishing'
  | 'snapshot-saving'
  | 'snapshot-saved'
  | 'events-appended'
  | 'run-updated'

export interface StoreFreezePoint {
  point: FreezePoint
  store: 'sessions' | 'runs' | 'executions' | 'snapshots'
  method: string
  when: 'before' | 'after'
}

export const storeFreezePoints: readonly StoreFreezePoint[] = [
  { point: 'run-created', store: 'runs', method: 'createRun', when: 'after' },
  { point: 'session-appended', store: 'sessions', method: 'append', when: 'after' },
  { point: 'journal-started', store: 'executions', method: 'start', when: 'after' },
  { point: 'journal-finishing', store: 'executions', method: 'finish', when: 'before' },
  { point: 'snapshot-saving', store: 'snapshots', method: 'save', when: 'before' },
  { point: 'snapshot-saved', store: 'snapshots', method: 'save', when: 'after' },
  { point: 'events-appended', store: 'runs', method: 'appendEvents', when: 'after' },
  { point: 'run-updated', store: 'runs', method: 'updateRun', when: 'after' },
]

/** Roughly how often each point is reached per task, to spread kills over about one to three tasks. */
export const occurrencesPerTask: Record<FreezePoint, number> = {
  'model-stream': 40,
  'tool-side-effect': 3,
  'run-created': 1,
  'session-appended': 5,
  'journal-started': 3,
  'journal-finishing': 3,
  'snapshot-saving': 4,
  'snapshot-saved': 4,
  'events-appended': 4,
  'run-updated': 6,
}

export interface ChildConfig {
  databasePath: string
  ledgerPath: string
  seed: number
  runs: number
  /** This process's owner id in run leases: the previous life's (a restarted worker) or a new one. */
  ownerId: string
  leaseMs: number
  /** Freeze at the n-th time (counted from the child's start, recovery included) this point is reached. */
  freeze?: { point: FreezePoint; occurrence: number }
  /** Use the default in-process session gate as is (see `restartSafeGate` in crash-child.ts). */
  defaultGate?: boolean
}

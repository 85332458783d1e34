// Runs left `running` by a process that is gone are marked `interrupted` (ready to resume) once their lease expires.
// `runtime.recover()` runs at start-up and skips a lease that has not expired yet (a restart right after a crash):
// this watch wakes when such a lease ends, and keeps looking, since another process may share a PostgreSQL database.
import type { RunRecord, RunStore } from '@spindle/core'
import { leaseIsFree } from '@spindle/core/plugin-kit'

export interface OrphanWatch {
  /** Stops watching; waits for a check in progress (call it before closing the stores). */
  stop(): Promise<void>
}

export interface OrphanWatchOptions {
  /** The run store without the kill fence: marking an orphan is no write of the run itself. */
  runs: RunStore
  /** This process's owner id in leases (`runtime.ownerId`): its own runs are left to its runtime. */
  ownerId: string
  /** The runtime's lease duration: a run without a lease counts as held this long after its last update. */
  leaseMs: number
  /** The longest time between two checks (default `leaseMs`); a known lease's expiry wakes the watch sooner. */
  intervalMs?: number
  onError?(error: unknown): void
}

/** Slack after a lease's expiry, so that the check finds it expired. */
const expiryMarginMs = 50

/**
 * Only runs held by another owner (or by none) are marked. `recover()` also takes this process's own runs with a
 * live lease, which is right at start-up but not later: a run of this process that is starting has that lease.
 */
export function watchOrphanedRuns(options: OrphanWatchOptions): OrphanWatch {
  const { runs, ownerId, leaseMs } = options
  const intervalMs = options.intervalMs ?? leaseMs
  const onError = options.onError ?? ((error: unknown) => console.error('[spindle/playground] checking for orphaned runs failed:', error))
  const expiry = (run: RunRecord) => run.lease?.expiresAt ?? run.updatedAt + leaseMs
  const foreign = (run: RunRecord) => run.lease?.owner !== ownerId
  // Core's rule for a lease: expired, or held by a provably dead process of this host (free at once, not at expiry).
  const held = (run: RunRecord, now: number) => (run.lease ? !leaseIsFree(run.lease, now) : run.updatedAt + leaseMs > now)
  let timer: NodeJS.Timeout | undefined
  let checking: Promise<void> | undefined
  let stopped = false

  /** Marks the orphans found now; returns when to look again. */
  const check = async (): Promise<number> => {
    let next = Date.now() + intervalMs
    for (const run of (await runs.listRuns({ status: 'running', limit: 1000 })).filter(foreign)) {
      if (stopped) break
      if (held(run, Date.now())) {
        next = Math.min(next, expiry(run) + expiryMarginMs)
        continue
      }
      // Read it again: a live process may have resumed it since the list was read.
      const fresh = await runs.getRun(run.id)
      if (!fresh || fresh.status !== 'running' || !foreign(fresh) || held(fresh, Date.now())) continue
      // Claimed where the store can (a compare-and-set on what was just read): a process that resumes the run in
      // between keeps it, instead of having it marked interrupted under its feet.
      const patch = { status: 'interrupted', lease: undefined } as const
      if (runs.claimRun) await runs.claimRun.call(runs, run.id, { status: fresh.status, lease: fresh.lease }, patch)
      else await runs.updateRun(run.id, patch)
    }
    return next
  }

  const schedule = (at: number) => {
    if (stopped) return
    timer = setTimeout(tick, Math.max(0, at - Date.now()))
    timer.unref?.()
  }
  const tick = () => {
    checking = check().then(schedule, (error: unknown) => {
      onError(error)
      schedule(Date.now() + intervalMs)
    })
  }

  tick()
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await checking
    },
  }
}

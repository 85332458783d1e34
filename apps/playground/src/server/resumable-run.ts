// Whether a run can be resumed: the playground refuses, with the HTTP status its error maps to, a run that has ended,
// one running elsewhere, or one that waits for an approval decision.
import { NotFoundError, type RunRecord, type RunStore, SessionBusyError, type SnapshotStore } from '@spindle/core'
import { RunStateConflictError } from './run-state-conflict-error.js'

/**
 * The run to resume, read from `stores`; throws `NotFoundError` (no such run), `RunStateConflictError` (it has ended,
 * or waits for a decision) or `SessionBusyError` (it is running and `resumingHere()` says no call here resumes it).
 */
export async function resumableRun(stores: { runs: RunStore; snapshots: SnapshotStore }, runId: string, resumingHere: () => boolean): Promise<RunRecord> {
  const run = await stores.runs.getRun(runId)
  if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
  if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
    throw new RunStateConflictError(`[spindle/playground] run "${runId}" is ${run.status}; only suspended or interrupted runs can be resumed`, {
      details: { runId, status: run.status },
    })
  }
  if (run.status === 'running' && !resumingHere()) {
    throw new SessionBusyError(
      `[spindle/playground] run "${runId}" is running; only suspended or interrupted runs can be resumed (cancel or kill it first; a run whose process died is shown interrupted once its lease expires)`,
      { details: { runId } },
    )
  }
  if (run.status === 'suspended') {
    const snapshot = await stores.snapshots.latest(runId)
    const waiting = ((snapshot?.state.pending ?? []) as Array<{ approval?: string; callId: string }>).filter((call) => call.approval === 'required')
    if (waiting.length) {
      throw new RunStateConflictError(
        `[spindle/playground] run "${runId}" waits for a decision on ${waiting.map((call) => call.callId).join(', ')}; approve or deny first`,
        {
          details: { runId, status: run.status },
        },
      )
    }
  }
  return run
}

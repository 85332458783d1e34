// The one rule from a run's finish reason to its stored status: the runtime writes it and every store applies it.
import type { FinishReason, RunStatus } from './run-store.js'

/**
 * The status of a run that ended (or suspended) with `reason`:
 * - `completed`: the run ended by itself or at a limit the caller set — `stop`, `length`, `content_filter`,
 *   `max_steps`, `max_tool_calls`, `budget` (its answer, possibly partial, is in the output);
 * - `failed`: it did not get to an answer — `error`, `timeout` (`policy.runTimeoutMs` passed), `policy` (a policy
 *   stopped it: a doom loop, a violation; the run's `error` says which);
 * - `cancelled`: `cancelled` (`runtime.cancel`, an aborted signal, a stream consumer that stopped reading);
 * - `suspended`: `awaiting_approval` (it continues with `resume()` once its calls are decided).
 * An unknown reason (a newer runtime's) counts as `failed`, so that a failure is never listed as a success.
 *
 * @example
 * runStatusOf('timeout') // 'failed': listRuns({ status: 'failed' }) lists runs that timed out
 */
export function runStatusOf(reason: FinishReason): RunStatus {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'content_filter':
    case 'max_steps':
    case 'max_tool_calls':
    case 'budget':
      return 'completed'
    case 'cancelled':
      return 'cancelled'
    case 'awaiting_approval':
      return 'suspended'
    default:
      return 'failed'
  }
}

/** The statuses of a run that stopped (ended, or suspended for approval): the ones `runStatusOf` chooses between. */
const stoppedStatuses: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled', 'suspended'])

/**
 * The status a store keeps for a patch: a patch that ends a run (its status one of `completed`, `failed`, `cancelled`,
 * `suspended`, with a `finishReason`) gets `runStatusOf(finishReason)`, whatever ending status it says; any other
 * patch keeps its own status (`undefined`: unchanged). `applyRunPatch` applies it; a store writing columns applies it
 * itself.
 *
 * @example
 * endedRunStatus({ status: 'completed', finishReason: 'timeout' }) // 'failed'
 */
export function endedRunStatus(patch: { status?: RunStatus; finishReason?: FinishReason }): RunStatus | undefined {
  const { status, finishReason } = patch
  return status !== undefined && finishReason !== undefined && stoppedStatuses.has(status) ? runStatusOf(finishReason) : status
}

// `AgentRuntime.recover()`: finds the runs a dead process left and resumes them concurrently (bounded), returning
// once the first ones are claimed; the rest continue in the background and `done` gives the final tally.
import { ConfigurationError, SessionBusyError } from '../errors/errors.js'
import type { JsonObject } from '../spec/json.js'
import type { RunPatch, RunRecord } from '../spec/run-store.js'
import type { AgentSpec, RunOutput } from './run-request.js'

/** `recover()`'s options. */
export interface RecoverOptions {
  /** `'resume'` (default) continues each run; `'interrupt'` marks each `interrupted` instead. */
  mode?: 'resume' | 'interrupt'
  /** Agents by name, for runs whose tools or models are not in the registries. */
  agents?: AgentSpec[]
  /** How many runs are resumed at once (default 4; a positive integer). Runs of one session go one after another. */
  concurrency?: number
  /** Called as each run is claimed, resumed (finished), refused or fails; an error it throws is ignored. */
  onProgress?: (progress: RecoverProgress) => void
}

/** One step of `recover()`'s work, given to `onProgress`. */
export interface RecoverProgress {
  runId: string
  /**
   * `claimed`: this process holds the run and continues it; `resumed`: it finished (`output`); `busy`: another process
   * holds it, or its session's last run awaits approval; `failed`: it could not be resumed (`error`).
   */
  state: 'claimed' | 'resumed' | 'busy' | 'failed'
  output?: RunOutput
  error?: unknown
  /** Runs settled so far (resumed, busy or failed) and runs found. */
  settled: number
  total: number
}

/** What `recover()` did with the runs a dead process left, once every run it found is settled. */
export interface RecoverOutcome {
  /** Each resumed run's output (in the order they finished). */
  resumed: RunOutput[]
  /** Marked `interrupted` (`mode: 'interrupt'`). */
  interrupted: string[]
  /**
   * Still refused once the others were tried: their session's last run awaits approval, or a live process holds it —
   * including a run another process (recovering at the same moment) claimed first: that process continues it, and
   * nothing was written for it here (with `mode: 'interrupt'` too).
   */
  busy: string[]
  /** Not resumed, with why (left as they were; `resume(runId, { agent })` may continue them). */
  failed: Array<{ runId: string; error: unknown }>
}

/**
 * What `recover()` returns as soon as the first runs are claimed: `resumed`, `busy` and `failed` as they stood
 * then (usually `resumed` is empty: runs finish later), `pending` the runs still being resumed in the background
 * (claimed, or waiting for a free slot), and `done` the final tally once every run is settled. A caller that needs
 * the runs finished awaits `done`.
 */
export interface RecoverResult extends RecoverOutcome {
  pending: string[]
  done: Promise<RecoverOutcome>
}

/** What `recoverRuns` needs from the runtime. */
export interface RecoverDeps {
  /** The runs a dead process left (lease expired, or this process's own), not active here. */
  stale(): Promise<RunRecord[]>
  /** Compare-and-set on the run's record; a lost claim throws a `SessionBusyError` with `details.claimed`. */
  claim(run: RunRecord, patch: RunPatch): Promise<unknown>
  /** Resumes the run; `onClaimed` is called once this process holds it (before the run continues). */
  resume(run: RunRecord, agent: AgentSpec | undefined, onClaimed: () => void): Promise<RunOutput>
}

const DEFAULT_CONCURRENCY = 4

/** A `SessionBusyError` from a claim: another process claimed the run first (nothing was written). */
export function isLostClaim(error: unknown): boolean {
  return SessionBusyError.isInstance(error) && error.details?.claimed === true
}

/** See `AgentRuntime.recover()`. */
export async function recoverRuns(options: RecoverOptions, deps: RecoverDeps): Promise<RecoverResult> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigurationError(`[spindle/core] recover(): "concurrency" must be a positive integer, got ${String(concurrency)}`)
  }
  let stale = await deps.stale()
  const outcome: RecoverOutcome = { resumed: [], interrupted: [], busy: [], failed: [] }
  if (options.mode === 'interrupt') {
    // Claimed like a resume: a run another process has resumed since the list was read is left to it (in `busy`).
    for (const run of stale) {
      try {
        await deps.claim(run, { status: 'interrupted', lease: undefined })
        outcome.interrupted.push(run.id)
      } catch (error) {
        if (!isLostClaim(error)) throw error
        outcome.busy.push(run.id)
      }
    }
    return { ...outcome, pending: [], done: Promise.resolve(outcome) }
  }
  // A sub-run (`agent.asTool()`) whose caller is recovered too is left to the caller: the caller's call continues
  // it, with the agent the call gives it (which `agents` need not list).
  const staleIds = new Set(stale.map((run) => run.id))
  stale = stale.filter((run) => typeof run.request.parentRunId !== 'string' || !staleIds.has(run.request.parentRunId))
  return schedule(stale, options, concurrency, deps, outcome)
}

function schedule(runs: RunRecord[], options: RecoverOptions, concurrency: number, deps: RecoverDeps, outcome: RecoverOutcome): Promise<RecoverResult> {
  const total = runs.length
  const queue = [...runs]
  // Refused because another unfinished run of its session must go first: tried again once some run has finished.
  let refused: RunRecord[] = []
  const inFlight = new Set<string>()
  const sessionsInFlight = new Set<string>()
  let unclaimed = 0
  let settled = 0
  let finish!: (outcome: RecoverOutcome) => void
  const done = new Promise<RecoverOutcome>((resolve) => (finish = resolve))
  let returned = false
  let giveBack!: (result: RecoverResult) => void
  const result = new Promise<RecoverResult>((resolve) => (giveBack = resolve))

  const report = (runId: string, state: RecoverProgress['state'], extra: { output?: RunOutput; error?: unknown } = {}) => {
    if (state !== 'claimed') settled++
    try {
      options.onProgress?.({ runId, state, ...extra, settled, total })
    } catch {
      // A progress callback never stops recovery.
    }
  }
  const start = (run: RunRecord) => {
    inFlight.add(run.id)
    sessionsInFlight.add(run.sessionId)
    unclaimed++
    let claimed = false
    const onClaimed = () => {
      if (claimed) return
      claimed = true
      unclaimed--
      report(run.id, 'claimed')
      step()
    }
    const name = (run.request.agent as JsonObject | undefined)?.name
    const agent = options.agents?.find((candidate) => candidate.name === name)
    let resumed: Promise<RunOutput>
    try {
      resumed = deps.resume(run, agent, onClaimed)
    } catch (error) {
      resumed = Promise.reject(error)
    }
    resumed.then(
      (output) => {
        outcome.resumed.push(output)
        // Some run finished: the ones refused so far may go now.
        queue.push(...refused)
        refused = []
        end(run, claimed)
        report(run.id, 'resumed', { output })
        step()
      },
      (error: unknown) => {
        end(run, claimed)
        // One run that cannot be resumed (its agent cannot be rebuilt, a store failed) does not stop the others.
        if (isLostClaim(error)) {
          outcome.busy.push(run.id)
          report(run.id, 'busy')
        } else if (SessionBusyError.isInstance(error)) refused.push(run)
        else {
          outcome.failed.push({ runId: run.id, error })
          report(run.id, 'failed', { error })
        }
        step()
      },
    )
  }
  const end = (run: RunRecord, claimed: boolean) => {
    inFlight.delete(run.id)
    sessionsInFlight.delete(run.sessionId)
    if (!claimed) unclaimed--
  }
  // Fills free slots (one run per session at a time), then returns once every started run is claimed or settled.
  const step = () => {
    while (inFlight.size < concurrency) {
      const next = queue.findIndex((run) => !sessionsInFlight.has(run.sessionId))
      if (next < 0) break
      start(queue.splice(next, 1)[0]!)
    }
    if (inFlight.size === 0) {
      // Nothing left that could make progress: the runs still refused stay busy.
      for (const run of [...queue, ...refused]) {
        outcome.busy.push(run.id)
        report(run.id, 'busy')
      }
      queue.length = 0
      refused = []
      finish(outcome)
    }
    if (!returned && unclaimed === 0) {
      returned = true
      const pending = [...inFlight, ...queue.map((run) => run.id)]
      giveBack({ resumed: [...outcome.resumed], interrupted: [], busy: [...outcome.busy], failed: [...outcome.failed], pending, done })
    }
  }
  step()
  return result
}

// RunManager: starts runs in the background and answers at once; approve, resume, cancel, kill and fork.
import { randomUUID } from 'node:crypto'
import { type AgentEvent, ConfigurationError, NotFoundError, type RunOutput, SessionBusyError } from '@spindle/core'
import type { Spindle } from './compose-spindle.js'
import { forkEntries } from './fork-entries.js'
import { sessionTitle } from './session-title.js'

export interface StartedRun {
  sessionId: string
  /** Absent when the session is busy and the run waits in the gate's queue. */
  runId?: string
  queued: boolean
  /** Names the message's run (its `metadata.ticket`) once it exists: how a queued message finds its run. */
  ticket: string
}

/** How long `start` waits for the run to begin before answering "queued". */
const startWaitMs = 300

export class RunManager {
  readonly #spindle: Spindle
  readonly #background = new Set<Promise<unknown>>()
  /** Aborted on shutdown: runs in flight stop, and messages waiting in a session's queue leave it. */
  readonly #shutdown = new AbortController()
  #stopped: Promise<string[]> | undefined
  /** Last error of a background resume, by run id (shown in the run detail). */
  readonly errors = new Map<string, string>()
  /** Messages held here, by session, while another run of it is unfinished (awaiting approval, killed, interrupted). */
  readonly #waiting = new Map<string, number>()
  /** By session: settles once the last message started has its run (or gave up), so held messages keep their order. */
  readonly #line = new Map<string, Promise<void>>()
  /** Runs this manager is resuming, until the resume ends (one resume at a time: the others are refused). */
  readonly #resuming = new Set<string>()

  constructor(spindle: Spindle) {
    this.#spindle = spindle
  }

  get #runtime() {
    return this.#spindle.runtime
  }

  async start(input: { sessionId?: string; text: string; model: string }): Promise<StartedRun> {
    const agent = this.#spindle.agentFor(input.model)
    const sessionId = input.sessionId ?? `ses_${randomUUID()}`
    const session = await this.#runtime.sessions.getSession(sessionId)
    if (!session) await this.#runtime.sessions.createSession({ id: sessionId, title: sessionTitle(input.text), metadata: {} })
    else if (!session.title) await this.#runtime.sessions.updateSession(sessionId, { title: sessionTitle(input.text) })
    const ticket = `msg_${randomUUID()}`
    let first: (value: AgentEvent | Error) => void = () => {}
    const firstEvent = new Promise<AgentEvent | Error>((resolve) => (first = resolve))
    const ahead = this.#line.get(sessionId)
    let admitted: () => void = () => {}
    const line = Promise.all([ahead, new Promise<void>((resolve) => (admitted = resolve))]).then(() => {})
    this.#line.set(sessionId, line)
    void line.then(() => this.#line.get(sessionId) === line && this.#line.delete(sessionId))
    let held = false
    const hold = (on: boolean) => {
      if (held !== on) this.#waiting.set(sessionId, this.waiting(sessionId) + (on ? 1 : -1))
      held = on
    }
    this.#track(
      (async () => {
        try {
          if (ahead) hold(true)
          await ahead
          // Refused while another run of the session is unfinished (its last run awaits approval, or was killed):
          // the message waits here, as it would in the gate's queue, until that run is resumed or cancelled.
          for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
            // The stream is lossless with back-pressure: keep reading it, or the run would wait for us.
            const stream = this.#runtime.stream({ agent, input: input.text, sessionId, metadata: { model: input.model, ticket }, signal: this.#shutdown.signal })
            try {
              for await (const event of stream) {
                hold(false)
                admitted()
                first(event)
              }
              await stream.result
              return
            } catch (error) {
              if (!behindUnfinishedRun(error) || this.#shutdown.signal.aborted) throw error
              hold(true)
              await delay(wait)
            }
          }
        } catch (error) {
          first(error instanceof Error ? error : new Error(String(error)))
        } finally {
          hold(false)
          admitted()
        }
      })(),
    )
    const outcome = await Promise.race([firstEvent, delay(startWaitMs)])
    if (outcome instanceof Error) throw outcome
    if (outcome) return { sessionId, runId: outcome.runId, queued: false, ticket }
    return { sessionId, queued: true, ticket }
  }

  async approve(runId: string, callId: string, decision: { approved: boolean; reason?: string }): Promise<void> {
    await this.#runtime.approve(runId, callId, decision)
    const snapshot = await this.#runtime.snapshots.latest(runId)
    const pending = (snapshot?.state.pending ?? []) as Array<{ approval?: string }>
    // Continue once every gated call of the step has a decision (a concurrent decision may have resumed it already).
    if (!pending.some((call) => call.approval === 'required')) await this.resume(runId, { joinResuming: true })
  }

  /** Messages of the session held back until its unfinished run is resumed or cancelled (not in the gate's queue). */
  waiting(sessionId: string): number {
    return this.#waiting.get(sessionId) ?? 0
  }

  /**
   * Continues a suspended, interrupted or killed run in the background. A run that is running, or that another call
   * is resuming, is refused (`SessionBusyError`, HTTP 409); `joinResuming` accepts the latter instead (an approval
   * whose run a concurrent decision resumed).
   */
  async resume(runId: string, options: { joinResuming?: boolean } = {}): Promise<void> {
    const resuming = () => {
      if (!this.#resuming.has(runId)) return false
      if (options.joinResuming) return true
      throw new SessionBusyError(`[spindle/playground] run "${runId}" is being resumed already; wait for it to finish, or cancel it`, { details: { runId } })
    }
    if (resuming()) return
    const run = await this.#runtime.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
      throw new ConfigurationError(`[spindle/playground] run "${runId}" is ${run.status}; only suspended or interrupted runs can be resumed`)
    }
    if (run.status === 'running' && !resuming()) {
      throw new SessionBusyError(
        `[spindle/playground] run "${runId}" is running; only suspended or interrupted runs can be resumed (cancel or kill it first; a run whose process died is shown interrupted once its lease expires)`,
        { details: { runId } },
      )
    }
    if (run.status === 'suspended') {
      const snapshot = await this.#runtime.snapshots.latest(runId)
      const waiting = ((snapshot?.state.pending ?? []) as Array<{ approval?: string; callId: string }>).filter((call) => call.approval === 'required')
      if (waiting.length) throw new ConfigurationError(`[spindle/playground] run "${runId}" waits for a decision on ${waiting.map((call) => call.callId).join(', ')}; approve or deny first`)
    }
    // Checked again after the reads above: a concurrent call may have claimed the run meanwhile.
    if (resuming()) return
    const model = String((run.request.agent as { model?: string } | undefined)?.model ?? (run.metadata.model as string | undefined) ?? '')
    const agent = this.#spindle.agentFor(model)
    this.#resuming.add(runId)
    this.errors.delete(runId)
    this.#track(
      this.#runtime
        .resume(runId, { agent, signal: this.#shutdown.signal })
        .catch((error: unknown) => {
          this.errors.set(runId, error instanceof Error ? error.message : String(error))
        })
        .finally(() => this.#resuming.delete(runId)),
    )
    await delay(20)
    if (this.errors.has(runId)) throw new ConfigurationError(this.errors.get(runId)!)
  }

  /** Graceful: the run ends with `cancelled` (final). */
  async cancel(runId: string): Promise<boolean> {
    return this.#runtime.cancel(runId)
  }

  /**
   * Kills the run as if its process died: nothing it does from now on is written or broadcast; the log
   * keeps what was persisted up to its last checkpoint, and the run is left `interrupted`, ready to resume.
   */
  async kill(runId: string): Promise<{ lastSeq: number }> {
    const run = await this.#runtime.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
    if (run.status !== 'running') throw new ConfigurationError(`[spindle/playground] run "${runId}" is ${run.status}; only a running run can be killed`)
    const { fence, rawStores } = this.#spindle
    fence.fence(runId)
    try {
      await this.#runtime.cancel(runId)
    } finally {
      fence.lift(runId)
    }
    const events = await rawStores.runs.listEvents(runId)
    const lastSeq = events.at(-1)?.seq ?? 0
    await rawStores.runs.updateRun(runId, { status: 'interrupted', lease: undefined })
    fence.reset(runId, run.sessionId, lastSeq)
    return { lastSeq }
  }

  /**
   * A new session whose log is a copy of the run's session up to the snapshot's last entry; `notRun` lists the calls
   * of the copy that had no result yet, now answered "not executed".
   */
  async fork(runId: string, version: number): Promise<{ sessionId: string; copied: number; notRun: string[] }> {
    const snapshot = await this.#runtime.snapshots.get(runId, version)
    if (!snapshot) throw new NotFoundError(`[spindle/playground] run "${runId}" has no snapshot version ${version}`)
    const lastSeq = Number(snapshot.state.lastSeq ?? 0)
    const source = await this.#runtime.sessions.getSession(snapshot.sessionId)
    const entries = await this.#runtime.sessions.listEntries(snapshot.sessionId, { before: lastSeq + 1 })
    const forked = await this.#runtime.sessions.createSession({
      title: `${source?.title ?? 'Session'} (fork @ step ${Number(snapshot.state.step ?? 0)})`,
      metadata: { forkedFrom: { sessionId: snapshot.sessionId, runId, version, lastSeq } },
    })
    // Calls the snapshot left unanswered (awaiting approval) are answered "not executed": a valid history for providers.
    const { entries: copies, notRun } = forkEntries(entries)
    if (copies.length) await this.#runtime.sessions.append(forked.id, copies)
    return { sessionId: forked.id, copied: entries.length, notRun }
  }

  /**
   * Stops every run of this process the way `kill` stops one: nothing more is written, and each run left `running`
   * is marked `interrupted`, so that the next start shows it ready to resume. Messages still queued are dropped.
   * Later calls return the first call's promise.
   */
  shutdown(options: { waitMs?: number } = {}): Promise<string[]> {
    this.#stopped ??= (async () => {
      const { fence, rawStores } = this.#spindle
      fence.fenceAll()
      this.#shutdown.abort(new Error('[spindle/playground] the server is shutting down'))
      await Promise.race([this.settle(), delay(options.waitMs ?? 3000)])
      const ours = (await rawStores.runs.listRuns({ status: 'running', limit: 1000 })).filter((run) => run.lease?.owner === this.#runtime.ownerId)
      for (const run of ours) await rawStores.runs.updateRun(run.id, { status: 'interrupted', lease: undefined })
      return ours.map((run) => run.id)
    })()
    return this.#stopped
  }

  /** Waits for every background run (tests, shutdown). */
  async settle(): Promise<void> {
    while (this.#background.size) await Promise.allSettled(this.#background)
  }

  #track(promise: Promise<unknown>): void {
    this.#background.add(promise)
    void promise.finally(() => this.#background.delete(promise))
  }
}

/** The kernel's refusal to start a run over another unfinished run of the session (not a full gate queue). */
function behindUnfinishedRun(error: unknown): boolean {
  return error instanceof SessionBusyError && typeof error.details?.status === 'string'
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms))
}

export type { RunOutput }

// RunManager: starts runs in the background and answers at once; approve, resume, cancel, kill and fork.
import { randomUUID } from 'node:crypto'
import { type AgentEvent, type ModelMessage, NotFoundError, type RunOutput, RuntimeStore, SessionBusyError, SpindleError } from '@spindle/core'
import type { Spindle } from './compose-spindle.js'
import { forkEntries } from './fork-entries.js'
import type { QueuedMessageFile, SavedQueuedMessage } from './queued-message-file.js'
import { RunStateConflictError } from './run-state-conflict-error.js'
import { resumableRun } from './resumable-run.js'
import { runtimeStateOf } from './runtime-state.js'
import { newSessionId } from './session-id.js'
import { sessionTitle } from './session-title.js'

export interface StartedRun {
  sessionId: string
  /** Absent when the session is busy and the run waits in the gate's queue. */
  runId?: string
  queued: boolean
  /** Names the message's run (its `metadata.ticket`) once it exists: how a queued message finds its run. */
  ticket: string
}

/** A message taken but not started yet (its session is busy): what a page reloaded meanwhile shows as queued. */
export interface QueuedMessage {
  ticket: string
  text: string
  queuedAt: number
}

type PendingMessage = SavedQueuedMessage

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
  /** By session, oldest first: the messages taken whose run has not started yet. */
  readonly #pending = new Map<string, PendingMessage[]>()
  /** By ticket, while its message has not started: takes it out of the queue for good. */
  readonly #withdrawals = new Map<string, () => void>()

  /** Where the messages not started yet are kept across restarts (none: they live in this process only). */
  readonly #queueFile: QueuedMessageFile | undefined

  constructor(spindle: Spindle, options: { queueFile?: QueuedMessageFile } = {}) {
    this.#spindle = spindle
    this.#queueFile = options.queueFile
  }

  /**
   * Takes back, in their order, the messages a previous process had taken but not started (it stopped or crashed):
   * each waits again behind its session's unfinished run, with its ticket, so that a page open across the restart
   * still finds its run. A message whose run exists already (the crash came after its start) is not sent twice.
   * Returns the tickets taken back.
   */
  async restoreQueued(): Promise<string[]> {
    const saved = this.#queueFile?.load() ?? []
    const restored: string[] = []
    for (const message of saved) {
      try {
        const runs = await this.#runtime.runs.listRuns({ sessionId: message.sessionId, limit: 1000 })
        if (runs.some((run) => run.metadata.ticket === message.ticket)) continue
        await this.start(message)
        restored.push(message.ticket)
      } catch (error) {
        console.error(
          `[spindle/playground] a queued message of session "${message.sessionId}" could not be taken back ("${message.text.slice(0, 60)}"): ${error instanceof Error ? error.message : String(error)}`,
        )
      }
    }
    this.#saveQueue()
    return restored
  }

  #saveQueue(): void {
    // Once shutting down, the messages leaving the queue are not dropped: the file keeps them for the next start.
    if (!this.#queueFile || this.#shutdown.signal.aborted) return
    this.#queueFile.save([...this.#pending.values()].flat().sort((a, b) => a.queuedAt - b.queuedAt))
  }

  get #runtime() {
    return this.#spindle.runtime
  }

  /**
   * `ticket` and `queuedAt`: a message taken back after a restart keeps its own. `messages`: the run's input instead of
   * `text` (a replay's edited messages; `text` then names it in the queue). Every run gets a RuntimeStore holding its
   * session's runtime state (see `runtimeStateOf`).
   */
  async start(input: { sessionId?: string; text: string; messages?: ModelMessage[]; model: string; ticket?: string; queuedAt?: number }): Promise<StartedRun> {
    const agent = this.#spindle.agentFor(input.model)
    const sessionId = input.sessionId ?? newSessionId()
    const session = await this.#runtime.sessions.getSession(sessionId)
    if (!session) await this.#runtime.sessions.createSession({ id: sessionId, title: sessionTitle(input.text), metadata: {} })
    else if (!session.title) await this.#runtime.sessions.updateSession(sessionId, { title: sessionTitle(input.text) })
    const runtimeState = runtimeStateOf(session?.metadata)
    const ticket = input.ticket ?? `msg_${randomUUID()}`
    // Listed (and saved) until the run starts (its record then carries the ticket) or the message gives up.
    const pending: PendingMessage = { sessionId, ticket, text: input.text, model: input.model, queuedAt: input.queuedAt ?? Date.now() }
    this.#pending.set(sessionId, [...(this.#pending.get(sessionId) ?? []), pending])
    this.#saveQueue()
    let listed = true
    const withdrawal = new AbortController()
    const unlist = () => {
      if (!listed) return
      listed = false
      this.#withdrawals.delete(ticket)
      const rest = (this.#pending.get(sessionId) ?? []).filter((message) => message !== pending)
      if (rest.length) this.#pending.set(sessionId, rest)
      else this.#pending.delete(sessionId)
      this.#saveQueue()
    }
    this.#withdrawals.set(ticket, () => {
      unlist()
      withdrawal.abort(new Error(`[spindle/playground] the queued message ${ticket} was withdrawn`))
    })
    const stopped = AbortSignal.any([this.#shutdown.signal, withdrawal.signal])
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
          // Withdrawn while it waited its turn: it never runs (its place in line passes to the next message).
          if (withdrawal.signal.aborted) return
          // Refused while another run of the session is unfinished (its last run awaits approval, or was killed):
          // the message waits here, as it would in the gate's queue, until that run is resumed or cancelled.
          for (let wait = 250; ; wait = Math.min(wait * 2, 2000)) {
            // The stream is lossless with back-pressure: keep reading it, or the run would wait for us.
            const runtime = new RuntimeStore({ defaults: structuredClone(runtimeState) })
            const stream = this.#runtime.stream({
              agent,
              input: input.messages ?? input.text,
              sessionId,
              runtime,
              metadata: { model: input.model, ticket },
              signal: stopped,
            })
            try {
              for await (const event of stream) {
                unlist()
                hold(false)
                admitted()
                first(event)
              }
              await stream.result
              return
            } catch (error) {
              if (withdrawal.signal.aborted) return
              if (!behindUnfinishedRun(error) || this.#shutdown.signal.aborted) throw error
              hold(true)
              await delay(wait)
              if (withdrawal.signal.aborted) return
            }
          }
        } catch (error) {
          first(error instanceof Error ? error : new Error(String(error)))
        } finally {
          unlist()
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

  /**
   * Records a decision, then continues the run once every gated call of its step has one. A run that is not awaiting
   * approval, a call that needs none, or a call already decided the other way is refused (`RunStateConflictError`,
   * HTTP 409); a call the run does not have is `NotFoundError` (404).
   */
  async approve(runId: string, callId: string, decision: { approved: boolean; reason?: string }): Promise<void> {
    const run = await this.#runtime.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
    if (run.status !== 'suspended') {
      throw new RunStateConflictError(
        `[spindle/playground] run "${runId}" is ${run.status}, not awaiting approval; only the calls of a suspended run can be approved or denied`,
        {
          details: { runId, status: run.status },
        },
      )
    }
    try {
      await this.#runtime.approve(runId, callId, decision)
    } catch (error) {
      // The kernel's refusals for the state of the run or call (decided meanwhile, not gated, already decided).
      if (SpindleError.isInstance(error) && (error.code === 'configuration' || error.code === 'duplicate')) {
        throw new RunStateConflictError(error.message, { cause: error, details: { runId, callId } })
      }
      throw error
    }
    const snapshot = await this.#runtime.snapshots.latest(runId)
    const pending = (snapshot?.state.pending ?? []) as Array<{ approval?: string }>
    // Continue once every gated call of the step has a decision (a concurrent decision may have resumed it already).
    if (!pending.some((call) => call.approval === 'required')) await this.resume(runId, { joinResuming: true })
  }

  /** The session's messages taken but not started yet, oldest first (also in the queue file, for the next start). */
  queued(sessionId: string): QueuedMessage[] {
    return (this.#pending.get(sessionId) ?? []).map(({ ticket, text, queuedAt }) => ({ ticket, text, queuedAt }))
  }

  /**
   * Takes a queued message out of its session's queue: it never runs. One whose run has started is refused
   * (`RunStateConflictError`, HTTP 409: cancel the run instead); an unknown ticket is `NotFoundError` (404).
   */
  async withdraw(sessionId: string, ticket: string): Promise<void> {
    const queued = (this.#pending.get(sessionId) ?? []).some((message) => message.ticket === ticket)
    const withdraw = queued ? this.#withdrawals.get(ticket) : undefined
    if (withdraw) return withdraw()
    const runs = await this.#runtime.runs.listRuns({ sessionId, limit: 500 })
    const started = runs.find((run) => run.metadata.ticket === ticket)
    if (started) {
      throw new RunStateConflictError(`[spindle/playground] the message ${ticket} has started its run "${started.id}" already; cancel that run instead`, {
        details: { ticket, runId: started.id },
      })
    }
    throw new NotFoundError(`[spindle/playground] session "${sessionId}" has no queued message ${ticket}`)
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
    const run = await resumableRun(this.#runtime, runId, resuming)
    const runtimeState = runtimeStateOf((await this.#runtime.sessions.getSession(run.sessionId))?.metadata)
    // Checked again after the reads above: a concurrent call may have claimed the run meanwhile.
    if (resuming()) return
    const model = String((run.request.agent as { model?: string } | undefined)?.model ?? (run.metadata.model as string | undefined) ?? '')
    const agent = this.#spindle.agentFor(model)
    this.#resuming.add(runId)
    this.errors.delete(runId)
    let failure: unknown
    this.#track(
      this.#runtime
        .resume(runId, { agent, runtime: new RuntimeStore({ defaults: runtimeState }), signal: this.#shutdown.signal })
        .catch((error: unknown) => {
          failure = error ?? new Error('resume failed')
          this.errors.set(runId, error instanceof Error ? error.message : String(error))
        })
        .finally(() => this.#resuming.delete(runId)),
    )
    await delay(20)
    // A kernel error keeps its code, and so its HTTP status (a session busy with another run is 409, not 400).
    if (failure !== undefined) throw failure
  }

  /**
   * Graceful: the run ends with `cancelled` (final). A run that cannot be cancelled (it has ended already, or it runs
   * in another process) is refused with `RunStateConflictError` (HTTP 409).
   */
  async cancel(runId: string): Promise<true> {
    if (await this.#runtime.cancel(runId)) return true
    const run = await this.#runtime.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
    const why =
      run.status === 'running' || run.status === 'queued'
        ? `is ${run.status}, but not in this process; wait until it shows interrupted (its lease expires), then cancel it`
        : `is ${run.status}; only a running, suspended or interrupted run can be cancelled`
    throw new RunStateConflictError(`[spindle/playground] run "${runId}" ${why}`, { details: { runId, status: run.status } })
  }

  /**
   * Kills the run as if its process died: nothing it does from now on is written or broadcast; the log
   * keeps what was persisted up to its last checkpoint, and the run is left `interrupted`, ready to resume.
   */
  async kill(runId: string): Promise<{ lastSeq: number }> {
    const run = await this.#runtime.runs.getRun(runId)
    if (!run) throw new NotFoundError(`[spindle/playground] no run "${runId}"`)
    if (run.status !== 'running')
      throw new RunStateConflictError(`[spindle/playground] run "${runId}" is ${run.status}; only a running run can be killed`, {
        details: { runId, status: run.status },
      })
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
      id: newSessionId(),
      title: `${source?.title ?? 'Session'} (fork @ step ${Number(snapshot.state.step ?? 0)})`,
      metadata: {
        forkedFrom: { sessionId: snapshot.sessionId, runId, version, lastSeq, step: Number(snapshot.state.step ?? 0) },
        runtimeState: runtimeStateOf(source?.metadata),
      },
    })
    // Calls the snapshot left unanswered (awaiting approval) are answered "not executed": a valid history for providers.
    const { entries: copies, notRun } = forkEntries(entries)
    if (copies.length) await this.#runtime.sessions.append(forked.id, copies)
    return { sessionId: forked.id, copied: entries.length, notRun }
  }

  /**
   * Stops every run of this process the way `kill` stops one: nothing more is written, and each run left `running`
   * is marked `interrupted`, so that the next start shows it ready to resume. Messages still queued leave this
   * process, but stay in the queue file (when there is one) for the next start to take back.
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
  return SessionBusyError.isInstance(error) && typeof error.details?.status === 'string'
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms))
}

export type { RunOutput }

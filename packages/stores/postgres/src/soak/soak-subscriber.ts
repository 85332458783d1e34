// The soak's live subscriber: one `runtime.subscribe()` in the parent process, over the PostgreSQL bus, for the whole
// campaign (its LISTEN connection is terminated on purpose while workers are SIGKILLed). It keeps what a client that
// mirrors runs keeps: per run, the events delivered, dropping those a later `run.resumed` declares discarded; and what
// it saw, for `liveViewProblems`. At the end it must hold exactly each run's stored log.
import { type AgentEvent, liveViewProblems, type RunStore, type SeenEvent } from '@spindle/core'

/** Per run: the events held (discarded ones dropped) and every event seen, split where a `lagged` forced a catch-up. */
export interface SoakLiveView {
  held: AgentEvent[]
  connections: SeenEvent[][]
}

/** Mirrors every run's events as delivered by `subscribe`, until `signal` aborts. */
export class SoakSubscriber {
  readonly views = new Map<string, SoakLiveView>()
  /** Events delivered, `lagged` events and events they said were missed. */
  readonly figures = { delivered: 0, discardedHeld: 0, lagged: 0, missed: 0 }
  readonly #done: Promise<void>

  constructor(events: AsyncIterable<AgentEvent | { type: 'lagged'; missed: number }>) {
    this.#done = (async () => {
      for await (const event of events) {
        if (event.type === 'lagged') {
          // A lagged subscriber has lost events it cannot name: like a new connection, it catches up from the log.
          this.figures.lagged++
          this.figures.missed += event.missed
          for (const view of this.views.values()) view.connections.push([])
          continue
        }
        this.#take(event)
      }
    })()
  }

  #take(event: AgentEvent): void {
    this.figures.delivered++
    let view = this.views.get(event.runId)
    if (!view) this.views.set(event.runId, (view = { held: [], connections: [[]] }))
    view.connections[view.connections.length - 1]!.push({ seq: event.seq, type: event.type, ...('callId' in event ? { callId: event.callId } : {}) })
    if (event.type === 'run.resumed' && event.discarded) {
      const { from, to } = event.discarded
      const kept = view.held.filter((held) => held.seq < from || held.seq > to)
      this.figures.discardedHeld += view.held.length - kept.length
      view.held = kept
    }
    view.held.push(event)
  }

  /** After a `lagged`: what the log holds past each run's last held event (the client's catch-up rule). */
  async catchUp(runs: RunStore): Promise<void> {
    if (this.figures.lagged === 0) return
    for (const [runId, view] of this.views) {
      for (const event of await runs.listEvents(runId, { after: view.held.at(-1)?.seq ?? 0 })) this.#take(event)
    }
  }

  /**
   * What is wrong with what the subscriber holds of each run against its stored log: the held events must be the
   * log, in order, each once, event for event; and what it saw must keep its meaning (`liveViewProblems`).
   */
  async problems(runs: RunStore, runIds: readonly string[]): Promise<string[]> {
    const problems: string[] = []
    for (const runId of runIds) {
      const log = await runs.listEvents(runId)
      const view = this.views.get(runId)
      if (!view) {
        problems.push(`run ${runId}: the subscriber got none of its ${log.length} events`)
        continue
      }
      const held = view.held.map(describe)
      const logged = log.map(describe)
      if (JSON.stringify(held) !== JSON.stringify(logged)) {
        const at = held.findIndex((event, i) => event !== logged[i])
        problems.push(
          `run ${runId}: the subscriber holds ${held.length} events, the log ${logged.length}; first difference at ${at}: held ${held[at] ?? 'nothing'}, logged ${logged[at] ?? 'nothing'}`,
        )
      }
      for (const problem of liveViewProblems(log, view.connections)) problems.push(`run ${runId}: ${problem}`)
    }
    return problems
  }

  /** Waits until every run's held events end with its terminal event and match the log, or `timeoutMs` passes. */
  async settle(runs: RunStore, runIds: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      await this.catchUp(runs)
      if ((await this.problems(runs, runIds)).length === 0) return
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  /** Resolves when the subscription ended. */
  done(): Promise<void> {
    return this.#done
  }
}

/** One event as compared with the log: its number, type, call and text (what a client shows). */
function describe(event: AgentEvent): string {
  const detail = 'callId' in event ? ` ${event.callId}` : event.type === 'text.delta' ? ` ${JSON.stringify(event.delta)}` : ''
  return `${event.seq} ${event.type}${detail}`
}

// EventBus across processes: NOTIFY on a channel, events over the payload limit sent by reference to the run
// event log, bounded subscribers with `lagged`, and per-run catch-up from the log after a reconnect or a gap.
import type { AgentEvent, EventBus, LaggedEvent, RunStore, SubscribeOptions } from '@spindle/core'
import type pg from 'pg'
import { type PostgresConnectionOptions, resolvePool } from './connection-options.js'
import { runMigrations } from './migrations.js'
import { PostgresListener } from './postgres-listener.js'
import { PostgresRunStore } from './postgres-run-store.js'
import { quoteSchema } from './schema-name.js'
import { poolDatabase } from './sql-database.js'

export interface PostgresEventBusOptions extends PostgresConnectionOptions {
  /** The run event log used for large events and catch-up (default: the PostgreSQL RunStore in `schema`). */
  runs?: RunStore
  /** NOTIFY payloads above this many bytes are sent as a reference (PostgreSQL's limit is 8000; default 7900). */
  maxPayloadBytes?: number
  /** Called when a publish fails (the publisher is never blocked nor thrown at). */
  onError?: (error: unknown) => void
}

type Wire = AgentEvent | { ref: { runId: string; seq: number } }

/** Events sent by one NOTIFY statement at most (a burst of deltas is one round trip, bounded in size). */
const notifyBatch = 256

/** How many runs' positions are remembered for de-duplication and gap filling. */
const trackedRunsLimit = 10_000

/**
 * @example
 * const bus = new PostgresEventBus({ pool })
 * for await (const event of bus.subscribe({ filter: (event) => event.sessionId === 's-1' })) console.log(event.type)
 */
export class PostgresEventBus implements EventBus {
  readonly specificationVersion = 'v1' as const
  readonly #pool: pg.Pool
  readonly #owned: boolean
  readonly #schemaName: string
  readonly #channel: string
  readonly #runs: RunStore
  readonly #maxPayloadBytes: number
  readonly #onError: (error: unknown) => void
  readonly #listener: PostgresListener
  readonly #subscribers = new Set<Subscriber>()
  /** Last seq delivered per run (insertion-ordered, so the oldest can be forgotten). */
  readonly #positions = new Map<string, number>()
  #publishing: Promise<void> = Promise.resolve()
  #receiving: Promise<void> = Promise.resolve()
  #lostAt: number | undefined
  #ready: Promise<void> | undefined
  #closed = false

  constructor(options: PostgresEventBusOptions = {}) {
    const { pool, owned } = resolvePool(options, 'PostgresEventBus')
    this.#pool = pool
    this.#owned = owned
    this.#schemaName = options.schema ?? 'spindle'
    quoteSchema(this.#schemaName)
    this.#channel = `spindle_events_${this.#schemaName}`.slice(0, 63)
    this.#runs = options.runs ?? new PostgresRunStore(poolDatabase(pool), quoteSchema(this.#schemaName))
    this.#maxPayloadBytes = options.maxPayloadBytes ?? 7900
    this.#onError = options.onError ?? (() => {})
    this.#listener = new PostgresListener(pool.options as pg.ClientConfig, this.#channel, {
      // A bus with no subscriber (a worker that only runs runs) neither parses nor fetches what it hears: every
      // process of a cluster hears every event of every run.
      onNotification: (payload) => {
        if (this.#subscribers.size > 0) this.#enqueue(() => this.#receive(payload))
      },
      onLost: () => {
        this.#lostAt ??= Date.now()
      },
      onReconnect: () => this.#enqueue(() => this.#catchUp()),
    })
  }

  /** Resolves once the tables exist and the LISTEN connection is up (subscribers receive events from then on). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await runMigrations(poolDatabase(this.#pool), this.#schemaName)
      await this.#listener.start()
    })().catch((error: unknown) => {
      this.#ready = undefined
      throw error
    })
    return this.#ready
  }

  publish(event: AgentEvent): void {
    if (this.#closed) return
    this.#pending.push(event)
    // A send is already scheduled (it takes every event pending when it starts): this event goes with it.
    if (this.#pending.length > 1) return
    this.#publishing = this.#publishing.then(nextTurn).then(() => this.#sendPending()).catch((error: unknown) => this.#onError(error))
  }

  /** Events published and not sent yet, in order. */
  #pending: AgentEvent[] = []

  /**
   * Sends the pending events in one statement (up to `notifyBatch` at a time): the notifications of one statement
   * are delivered in the order they were raised, so a burst of deltas is one round trip instead of one each.
   */
  async #sendPending(): Promise<void> {
    while (this.#pending.length) {
      const events = this.#pending.splice(0, notifyBatch)
      try {
        const payloads: string[] = []
        for (const event of events) {
          let payload = JSON.stringify(event)
          if (Buffer.byteLength(payload, 'utf8') > this.#maxPayloadBytes) {
            // Too big for NOTIFY: make sure it is in the log (appending a stored seq is a no-op), send the reference.
            await this.#runs.appendEvents(event.runId, [event])
            payload = JSON.stringify({ ref: { runId: event.runId, seq: event.seq } } satisfies Wire)
          }
          payloads.push(payload)
        }
        await this.#pool.query('SELECT pg_notify($1, p) FROM (SELECT p FROM unnest($2::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i) AS ordered', [
          this.#channel,
          payloads,
        ])
      } catch (error) {
        // Reported once per batch, and the loop goes on: what is still pending is sent (a subscriber fills the gap
        // from the run log), and the next publish is not left waiting behind a send that never comes.
        this.#onError(error)
      }
    }
  }

  /** Resolves when every event published so far has been sent. */
  flush(): Promise<void> {
    return this.#publishing
  }

  subscribe(options: SubscribeOptions = {}): AsyncIterable<AgentEvent | LaggedEvent> {
    const subscriber = new Subscriber(options, () => this.#subscribers.delete(subscriber))
    if (!this.#closed) {
      this.#subscribers.add(subscriber)
      this.ready().catch((error: unknown) => this.#onError(error))
    } else subscriber.end()
    return { [Symbol.asyncIterator]: () => subscriber }
  }

  /** The backend pid of the LISTEN connection, when connected (tests terminate it to prove catch-up). */
  listenerBackendPid(): Promise<number | undefined> {
    return this.#listener.backendPid()
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#publishing
    for (const subscriber of this.#subscribers) subscriber.end()
    await this.#listener.close()
    if (this.#owned) await this.#pool.end()
  }

  /** Notifications are handled one at a time, so fetches from the log never reorder a run's events. */
  #enqueue(task: () => Promise<void>): void {
    this.#receiving = this.#receiving.then(task).catch((error: unknown) => this.#onError(error))
  }

  async #receive(payload: string): Promise<void> {
    const wire = JSON.parse(payload) as Wire
    if ('ref' in wire) {
      const event = await this.#fetch(wire.ref.runId, wire.ref.seq)
      if (event !== undefined) await this.#accept(event)
    } else await this.#accept(wire)
  }

  async #fetch(runId: string, seq: number): Promise<AgentEvent | undefined> {
    const [event] = await this.#runs.listEvents(runId, { after: seq - 1, limit: 1 })
    return event?.seq === seq ? event : undefined
  }

  /** Delivers an event after filling any gap before it from the log; drops what was delivered already. */
  async #accept(event: AgentEvent): Promise<void> {
    const last = this.#positions.get(event.runId)
    if (last !== undefined && event.seq <= last) return
    if (last !== undefined && event.seq > last + 1) {
      for (const missing of await this.#runs.listEvents(event.runId, { after: last, limit: event.seq - last - 1 })) this.#deliver(missing)
    }
    this.#deliver(event)
  }

  #deliver(event: AgentEvent): void {
    const last = this.#positions.get(event.runId)
    if (last !== undefined && event.seq <= last) return
    this.#positions.delete(event.runId)
    // Terminal runs are kept too (for de-duplication) until the oldest positions are forgotten.
    this.#positions.set(event.runId, event.seq)
    if (this.#positions.size > trackedRunsLimit) this.#positions.delete(this.#positions.keys().next().value!)
    for (const subscriber of this.#subscribers) subscriber.push(event)
  }

  /** After a reconnect: read what the log holds beyond each known position, and the runs created meanwhile. */
  async #catchUp(): Promise<void> {
    const lostAt = this.#lostAt ?? Date.now()
    this.#lostAt = undefined
    if (this.#subscribers.size === 0) return
    const runIds = new Set(this.#positions.keys())
    for (const run of await this.#runs.listRuns({ limit: 200 })) if (run.updatedAt >= lostAt - 1000) runIds.add(run.id)
    for (const runId of runIds) {
      const after = this.#positions.get(runId) ?? 0
      for (const event of await this.#runs.listEvents(runId, { after })) this.#deliver(event)
    }
  }
}

/** One subscriber: a bounded buffer that drops the oldest events and reports how many with a `lagged` event. */
class Subscriber implements AsyncIterator<AgentEvent | LaggedEvent> {
  readonly #filter: ((event: AgentEvent) => boolean) | undefined
  readonly #capacity: number
  readonly #buffer: AgentEvent[] = []
  readonly #onEnd: () => void
  readonly #signal: AbortSignal | undefined
  #missed = 0
  #ended = false
  #wake: (() => void) | undefined

  constructor(options: SubscribeOptions, onEnd: () => void) {
    this.#filter = options.filter
    this.#capacity = Math.max(1, options.capacity ?? 256)
    this.#onEnd = onEnd
    this.#signal = options.signal
    if (this.#signal?.aborted) this.end()
    else this.#signal?.addEventListener('abort', () => this.end(), { once: true })
  }

  push(event: AgentEvent): void {
    if (this.#ended) return
    try {
      if (this.#filter !== undefined && !this.#filter(event)) return
    } catch {
      return
    }
    this.#buffer.push(event)
    if (this.#buffer.length > this.#capacity) {
      this.#buffer.shift()
      this.#missed += 1
    }
    this.#wake?.()
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    this.#onEnd()
    this.#wake?.()
  }

  async next(): Promise<IteratorResult<AgentEvent | LaggedEvent>> {
    for (;;) {
      if (this.#missed > 0) {
        const lagged: LaggedEvent = { type: 'lagged', missed: this.#missed, timestamp: Date.now() }
        this.#missed = 0
        return { value: lagged, done: false }
      }
      const event = this.#buffer.shift()
      if (event !== undefined) return { value: event, done: false }
      if (this.#ended) return { value: undefined, done: true }
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  async return(): Promise<IteratorResult<AgentEvent | LaggedEvent>> {
    this.end()
    this.#buffer.length = 0
    return { value: undefined, done: true }
  }
}

/** Resolves in the next turn of the event loop: what a run publishes between two awaits of I/O goes out together. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

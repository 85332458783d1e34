// EventBus across processes: NOTIFY on a channel, events over the payload limit sent by reference to the run
// event log, bounded subscribers with `lagged`, and per-run catch-up from the log after a reconnect or a gap.
// The bus never writes the log (the run does, once per step): a gap the log cannot fill yet (a lost notification,
// a reference to an event its step has not committed) is filled once it can, by polling the log, in order; a jump
// that a `run.resumed` declares discarded is no gap.
import type { AgentEvent, EventBus, LaggedEvent, RunStore, SubscribeOptions } from '@spindle/core'
import type pg from 'pg'
import { type PostgresConnectionOptions, resolvePool } from './connection-options.js'
import { runMigrations } from './migrations.js'
import { PostgresListener } from './postgres-listener.js'
import { PostgresRunStore } from './postgres-run-store.js'
import { quoteSchema } from './schema-name.js'
import { poolDatabase } from './sql-database.js'

/** Options of `PostgresEventBus`: the connection and schema, the largest payload sent through NOTIFY, the run store to catch up from, and an error callback. */
export interface PostgresEventBusOptions extends PostgresConnectionOptions {
  /** The run event log used for large events and catch-up (default: the PostgreSQL RunStore in `schema`). */
  runs?: RunStore
  /** NOTIFY payloads above this many bytes are sent as a reference (PostgreSQL's limit is 8000; default 7900). */
  maxPayloadBytes?: number
  /** Called when a publish fails (the publisher is never blocked nor thrown at). */
  onError?: (error: unknown) => void
  /** How often a run whose live events ran ahead of a gap reads its log until the gap is filled (default 100 ms). */
  gapPollMs?: number
}

type Wire = AgentEvent | { ref: { runId: string; seq: number } }

/** Events sent by one NOTIFY statement at most (a burst of deltas is one round trip, bounded in size). */
const notifyBatch = 256

/** How many runs' positions are remembered for de-duplication and gap filling. */
const trackedRunsLimit = 10_000
/** The most runs one catch-up after a reconnect reads (those written since the connection was lost, oldest first). */
const catchUpRunsLimit = 10_000

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
  /** Runs with a gap the log could not fill yet: the highest seq heard live (filled up to it from the log). */
  readonly #gaps = new Map<string, number>()
  readonly #gapPollMs: number
  #gapTimer: NodeJS.Timeout | undefined
  #ready: Promise<void> | undefined
  #closed = false
  /** Since when this bus has had subscribers (a run started since then is delivered from its first event). */
  #subscribedSince: number | undefined

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
    this.#gapPollMs = options.gapPollMs ?? 100
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
    this.#publishing = this.#publishing
      .then(nextTurn)
      .then(() => this.#sendPending())
      .catch((error: unknown) => this.#onError(error))
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
            // Too big for NOTIFY: a reference. Never written to the log from here (its step's commit writes it, or a
            // crash discards it): a subscriber reads it from the log once there.
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
    const subscriber = new Subscriber(options, () => {
      this.#subscribers.delete(subscriber)
      if (this.#subscribers.size === 0) this.#subscribedSince = undefined
    })
    if (!this.#closed) {
      if (this.#subscribers.size === 0) this.#subscribedSince = Date.now()
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
    if (this.#gapTimer !== undefined) clearTimeout(this.#gapTimer)
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
      // Not logged yet (its step has not committed): a gap, filled from the log once it is.
      if (event !== undefined) await this.#accept(event)
      else await this.#fillGap(wire.ref.runId, wire.ref.seq)
    } else await this.#accept(wire)
  }

  async #fetch(runId: string, seq: number): Promise<AgentEvent | undefined> {
    const [event] = await this.#runs.listEvents(runId, { after: seq - 1, limit: 1 })
    return event?.seq === seq ? event : undefined
  }

  /**
   * Delivers an event after filling any gap before it from the log; drops what was delivered already. An event the
   * log cannot connect yet (it lags the live events by up to a step) is not delivered: the run reads its log until it
   * holds the event, or a `run.resumed` declares it discarded.
   */
  async #accept(event: AgentEvent): Promise<void> {
    let last = this.#positions.get(event.runId)
    if (last === undefined && event.seq > 1) {
      // The first event heard of a run is not its first: its start was not heard (published while the LISTEN
      // connection was down, or by a worker killed before its NOTIFY went out though its commit landed). What the log
      // holds before it comes first, so a subscriber never holds a run's later events without its earlier ones.
      // Only a run that started while this bus had subscribers: one that started before is heard from then on.
      const logged = await this.#runs.listEvents(event.runId, { after: 0 })
      if (this.#subscribedSince !== undefined && logged.length > 0 && logged[0]!.timestamp >= this.#subscribedSince) {
        for (const earlier of logged) if (earlier.seq < event.seq) this.#deliver(earlier)
      }
      last = this.#positions.get(event.runId)
    }
    if (last === undefined || follows(event, last)) {
      if (this.#gaps.has(event.runId) && event.seq >= this.#gaps.get(event.runId)!) this.#gaps.delete(event.runId)
      return this.#deliver(event)
    }
    if (event.seq <= last) return
    await this.#fillGap(event.runId, event.seq - 1)
    const position = this.#positions.get(event.runId)!
    if (follows(event, position)) {
      if (this.#gaps.has(event.runId) && event.seq >= this.#gaps.get(event.runId)!) this.#gaps.delete(event.runId)
      this.#deliver(event)
    } else if (event.seq > position) this.#markGap(event.runId, event.seq)
  }

  /** Delivers what the log holds after the run's position; marks a gap while it does not reach `through`. */
  async #fillGap(runId: string, through: number): Promise<void> {
    const after = this.#positions.get(runId) ?? 0
    if (after < through) for (const event of await this.#runs.listEvents(runId, { after })) this.#deliver(event)
    if ((this.#positions.get(runId) ?? 0) < through) this.#markGap(runId, through)
    else if ((this.#gaps.get(runId) ?? 0) <= (this.#positions.get(runId) ?? 0)) this.#gaps.delete(runId)
  }

  #markGap(runId: string, through: number): void {
    this.#gaps.set(runId, Math.max(this.#gaps.get(runId) ?? 0, through))
    if (this.#gapTimer !== undefined || this.#closed) return
    this.#gapTimer = setTimeout(() => {
      this.#gapTimer = undefined
      this.#enqueue(() => this.#pollGaps())
    }, this.#gapPollMs)
    this.#gapTimer.unref?.()
  }

  /** Reads the log of every run with a gap (serialized with the notifications, so a run's events stay in order). */
  async #pollGaps(): Promise<void> {
    for (const [runId, through] of this.#gaps) {
      if (this.#subscribers.size === 0) this.#gaps.delete(runId)
      else await this.#fillGap(runId, through)
    }
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
    // Every run written since the connection was lost, by its last update (not the newest created: a run created long
    // before, e.g. enqueued in a batch, may have run whole while the connection was down).
    const { rows } = await this.#pool.query<{ id: string }>(
      `SELECT id FROM ${quoteSchema(this.#schemaName)}.runs WHERE updated_at >= $1 ORDER BY updated_at, id LIMIT ${catchUpRunsLimit}`,
      [lostAt - 1000],
    )
    for (const row of rows) runIds.add(row.id)
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

/** Whether `event` comes right after `last`: the next seq, or the `run.resumed` that declares the numbers between discarded. */
function follows(event: AgentEvent, last: number): boolean {
  if (event.seq === last + 1) return true
  return (
    event.type === 'run.resumed' && event.discarded !== undefined && event.discarded.from <= last + 1 && event.discarded.to >= event.seq - 1 && event.seq > last
  )
}

/** Resolves in the next turn of the event loop: what a run publishes between two awaits of I/O goes out together. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

// RunQueue on pg-boss 10: one job per run, job expiry as the crash detector (renewed by a heartbeat while the
// run executes), retries with backoff, claims with FOR UPDATE SKIP LOCKED, NOTIFY to wake idle workers.
import { createHash } from 'node:crypto'
import { ConfigurationError, type RunJob, type RunQueue, SessionBusyError, type WorkOptions } from '@spindle/core'
import type pg from 'pg'
import PgBoss from 'pg-boss'
import { type PostgresConnectionOptions, resolvePool } from './connection-options.js'
import { sqlState } from './map-postgres-error.js'
import { PostgresListener } from './postgres-listener.js'
import { quoteSchema } from './schema-name.js'
import { poolDatabase, type SqlExecutor } from './sql-database.js'

/** Options of `PostgresRunQueue` (pg-boss 10): the connection and schemas, the queue name, job expiry, heartbeats, retries, polling and maintenance intervals. */
export interface PostgresRunQueueOptions extends PostgresConnectionOptions {
  /** The schema of pg-boss's tables; default `<schema>_queue` (pg-boss owns and migrates it). */
  queueSchema?: string
  /** The pg-boss queue name; default `spindle-runs`. */
  queueName?: string
  /**
   * A claimed job not renewed for this long is handed to another worker (the crash detector); default 60 s.
   * The claiming worker's value applies: it sets it when it claims a job, then renews it every `heartbeatSeconds`
   * while the run executes, so a long run is never handed over.
   */
  expireInSeconds?: number
  /** How often a worker renews the jobs it holds; default a third of `expireInSeconds`. */
  heartbeatSeconds?: number
  /** Attempts after the first when a handler throws (the run is busy elsewhere, a store failed); default 20. */
  retryLimit?: number
  /** Base delay of the exponential backoff between attempts, in seconds; default 1. */
  retryDelaySeconds?: number
  /**
   * The longest wait before a job refused with `SessionBusyError` (its session has another unfinished run, or its run
   * is still held by another worker) is tried again, in seconds; default 30. Such a job is not failed: it waits,
   * without using its retries, from `retryDelaySeconds` up to this, growing with how long it has been waiting.
   */
  busyDelayMaxSeconds?: number
  /** How often pg-boss looks for expired jobs (its maintenance), in seconds; default 5. */
  maintenanceIntervalSeconds?: number
  /** How often an idle worker looks for jobs when no notification arrived; default 500 ms. */
  pollIntervalMs?: number
  /** Errors the queue survives (a failed heartbeat, pg-boss maintenance); default: ignored. */
  onError?: (error: unknown) => void
}

interface ClaimedJob {
  id: string
  data: RunJob
}

const wakeChannel = 'spindle_run_queue'

/**
 * The job id of a run: a UUID derived from the run id, so that enqueuing a run twice inserts one job
 * (pg-boss's insert is `ON CONFLICT DO NOTHING` on the id), whatever state the first job is in.
 */
export function runJobId(runId: string): string {
  const hex = createHash('sha256').update(`spindle-run:${runId}`).digest('hex')
  // Shaped as a version-5-style UUID (RFC 9562 variant bits), which PostgreSQL's uuid type accepts.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`
}

/**
 * Runs enqueued by any process and executed by workers on many machines.
 *
 * pg-boss 10 has no job heartbeat: while a handler runs, the worker pushes the job's expiry forward with one
 * UPDATE on pg-boss's `job` table (`expire_in`, the column pg-boss's own expiry reads), so only a dead or
 * partitioned worker's jobs expire. An expired job is retried (backoff) by another worker, whose
 * `runtime.resume()` waits out the dead worker's run lease, re-acquires the session gate (a new fencing token:
 * the dead holder's late writes are refused) and continues from the last snapshot and the log.
 *
 * @example
 * const queue = new PostgresRunQueue({ pool, schema: 'spindle' })
 * extensions.queue = queue
 * await runtime.enqueue({ agent, input: 'hi' })                   // any process
 * await runtime.work({ concurrency: 4, signal, agents: [agent] }) // each worker process
 */
export class PostgresRunQueue implements RunQueue {
  readonly specificationVersion = 'v1' as const
  readonly queueName: string
  readonly queueSchema: string
  readonly #pool: pg.Pool
  readonly #owned: boolean
  readonly #database: SqlExecutor
  readonly #schemaName: string
  readonly #boss: PgBoss
  readonly #expireInSeconds: number
  readonly #heartbeatMs: number
  readonly #pollMs: number
  readonly #onError: (error: unknown) => void
  readonly #listener: PostgresListener
  readonly #wakers = new Set<() => void>()
  readonly #workers = new Set<Promise<void>>()
  readonly #queueOptions: { policy: 'standard'; expireInSeconds: number; retryLimit: number; retryDelay: number; retryBackoff: boolean }
  readonly #retryDelaySeconds: number
  readonly #busyDelayMaxSeconds: number
  #ready: Promise<void> | undefined
  #closed = false

  constructor(options: PostgresRunQueueOptions = {}) {
    const { pool, owned } = resolvePool(options, 'PostgresRunQueue')
    this.#pool = pool
    this.#owned = owned
    this.#schemaName = options.schema ?? 'spindle'
    quoteSchema(this.#schemaName)
    this.queueSchema = options.queueSchema ?? `${this.#schemaName}_queue`
    quoteSchema(this.queueSchema)
    this.queueName = options.queueName ?? 'spindle-runs'
    this.#expireInSeconds = Math.max(1, Math.ceil(options.expireInSeconds ?? 60))
    this.#heartbeatMs = Math.max(250, Math.floor((options.heartbeatSeconds ?? this.#expireInSeconds / 3) * 1000))
    if (this.#heartbeatMs >= this.#expireInSeconds * 1000) {
      throw new ConfigurationError('[spindle/store-postgres] PostgresRunQueue: heartbeatSeconds must be shorter than expireInSeconds, or live jobs expire')
    }
    this.#pollMs = options.pollIntervalMs ?? 500
    this.#onError = options.onError ?? (() => {})
    const database = poolDatabase(pool)
    this.#database = database
    const retryLimit = options.retryLimit ?? 20
    const retryDelay = Math.max(1, Math.round(options.retryDelaySeconds ?? 1))
    this.#retryDelaySeconds = retryDelay
    this.#busyDelayMaxSeconds = Math.max(retryDelay, options.busyDelayMaxSeconds ?? 30)
    this.#boss = new PgBoss({
      // pg-boss runs on our pool (statements retried when a connection is dropped); it opens none of its own.
      db: { executeSql: (text: string, values?: unknown[]) => database.query(text, values ?? []) },
      schema: this.queueSchema,
      schedule: false,
      supervise: true,
      migrate: true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 5,
      expireInSeconds: this.#expireInSeconds,
      retryLimit,
      retryDelay,
      retryBackoff: true,
    })
    this.#boss.on('error', (error) => this.#onError(error))
    this.#queueOptions = { policy: 'standard', expireInSeconds: this.#expireInSeconds, retryLimit, retryDelay, retryBackoff: true }
    this.#listener = new PostgresListener(pool.options as pg.ClientConfig, wakeChannel, {
      onNotification: (payload) => {
        if (payload === this.#wakeKey) this.#wake()
      },
      onReconnect: () => this.#wake(),
    })
  }

  get #wakeKey(): string {
    return `${this.queueSchema}:${this.queueName}`
  }

  /** Creates pg-boss's schema and the queue (once across processes) and starts listening for new jobs. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      if (this.#closed) throw new ConfigurationError('[spindle/store-postgres] PostgresRunQueue was closed; create a new one')
      await this.#boss.start()
      await this.#createQueue()
      await this.#listener.start()
    })().catch((error: unknown) => {
      this.#ready = undefined
      throw error
    })
    return this.#ready
  }

  /**
   * pg-boss's `create_queue` is not serialized: two processes creating the same queue at once can deadlock (one of
   * them is aborted, the other creates it). The loser tries again and finds the queue.
   */
  async #createQueue(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await this.#boss.getQueue(this.queueName)) return
        await this.#boss.createQueue(this.queueName, { name: this.queueName, ...this.#queueOptions })
        return
      } catch (error) {
        const code = sqlState(error)
        if (attempt >= 5 || (code !== '40P01' && code !== '23505' && code !== '42P07')) throw error
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt))
      }
    }
  }

  /** Adds the run's job; a run already enqueued (in any state) is left as it is. */
  async enqueue(job: RunJob): Promise<void> {
    await this.ready()
    await this.#boss.send(this.queueName, { runId: job.runId, sessionId: job.sessionId }, { id: runJobId(job.runId), singletonKey: job.runId })
    await this.#pool.query('SELECT pg_notify($1, $2)', [wakeChannel, this.#wakeKey]).catch((error: unknown) => this.#onError(error))
  }

  /**
   * Claims jobs and runs `handler` on each, at most `concurrency` at once, until `signal` aborts; then stops
   * claiming and resolves when the jobs in flight are finished (graceful shutdown). A job whose handler throws
   * is retried after a backoff; one whose worker dies expires and is retried by another worker.
   */
  async work(handler: (job: RunJob) => Promise<void>, options: WorkOptions): Promise<void> {
    await this.ready()
    const worker = this.#work(handler, options)
    this.#workers.add(worker)
    try {
      await worker
    } finally {
      this.#workers.delete(worker)
    }
  }

  async #work(handler: (job: RunJob) => Promise<void>, { concurrency, signal }: WorkOptions): Promise<void> {
    const limit = Math.max(1, Math.floor(concurrency))
    const inFlight = new Map<string, Promise<void>>()
    const heartbeat = setInterval(() => void this.#renew([...inFlight.keys()]), this.#heartbeatMs)
    heartbeat.unref?.()
    try {
      while (!signal.aborted && !this.#closed) {
        const free = limit - inFlight.size
        const jobs = free > 0 ? ((await this.#boss.fetch(this.queueName, { batchSize: free })) as unknown as ClaimedJob[]) : []
        // The claiming worker's expiry applies (the job carries the enqueuer's, or the queue's first creator's).
        if (jobs.length > 0) await this.#renew(jobs.map((job) => job.id))
        for (const job of jobs) {
          const task = this.#handle(handler, job).finally(() => {
            inFlight.delete(job.id)
            this.#wake()
          })
          inFlight.set(job.id, task)
        }
        // A full batch may mean more are waiting: look again at once when a slot is free.
        if (jobs.length > 0 && jobs.length === free) continue
        await this.#idle(signal, jobs.length > 0 ? 0 : this.#pollMs)
      }
      await Promise.all(inFlight.values())
    } finally {
      clearInterval(heartbeat)
    }
  }

  async #handle(handler: (job: RunJob) => Promise<void>, job: ClaimedJob): Promise<void> {
    try {
      await handler({ runId: job.data.runId, sessionId: job.data.sessionId })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (SessionBusyError.isInstance(error)) await this.#settle(() => this.#defer(job.id, message))
      else await this.#settle(() => this.#boss.fail(this.queueName, job.id, { message }))
      return
    }
    await this.#settle(() => this.#boss.complete(this.queueName, job.id))
  }

  /** Completing or failing a job is retried a few times; if it never lands, the job expires and is retried (harmless: the run is done). */
  async #settle(operation: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await operation()
        return
      } catch (error) {
        this.#onError(error)
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
      }
    }
  }

  /**
   * Puts a job refused for a busy session back to wait, without counting an attempt (`started_on` cleared: pg-boss
   * counts a retry when it fetches a job that has started before). The wait is a tenth of the time it has waited
   * so far, between `retryDelaySeconds` and `busyDelayMaxSeconds`, with jitter: a crashed run's session frees up
   * in seconds, a run awaiting approval may take hours, and the exponential backoff of failures suits neither.
   */
  async #defer(id: string, message: string): Promise<void> {
    await this.#database.query(
      `UPDATE ${quoteSchema(this.queueSchema)}.job SET
         state = 'retry',
         started_on = NULL,
         output = jsonb_build_object('message', $3::text, 'busySince', COALESCE(output->>'busySince', now()::text)),
         start_after = now() + make_interval(secs => LEAST($5::float8, GREATEST($4::float8,
           EXTRACT(EPOCH FROM now() - COALESCE((output->>'busySince')::timestamptz, now()))::float8 / 10)) * (0.75 + random() / 2))
       WHERE name = $1 AND id = $2 AND state = 'active'`,
      [this.queueName, id, message, this.#retryDelaySeconds, this.#busyDelayMaxSeconds],
    )
  }

  /** Pushes the expiry of the jobs this worker holds `expireInSeconds` past now. */
  async #renew(ids: string[]): Promise<void> {
    if (ids.length === 0) return
    try {
      await this.#database.query(
        `UPDATE ${quoteSchema(this.queueSchema)}.job SET expire_in = (now() - started_on) + make_interval(secs => $3)
         WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
        [this.queueName, ids, this.#expireInSeconds],
      )
    } catch (error) {
      this.#onError(error)
    }
  }

  #idle(signal: AbortSignal, ms: number): Promise<void> {
    if (ms === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        this.#wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal.addEventListener('abort', done, { once: true })
      this.#wakers.add(done)
    })
  }

  #wake(): void {
    for (const wake of this.#wakers) wake()
  }

  /** Job counts by state (created, retry, active, completed, failed…), for dashboards and tests. */
  async counts(): Promise<Record<string, number>> {
    await this.ready()
    const { rows } = await this.#pool.query<{ state: string; count: string }>(
      `SELECT state::text AS state, count(*) AS count FROM ${quoteSchema(this.queueSchema)}.job WHERE name = $1 GROUP BY state`,
      [this.queueName],
    )
    return Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]))
  }

  /** Stops claiming, waits for the workers' jobs in flight, stops pg-boss's maintenance and the listener; ends the pool if this queue created it. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#wake()
    await Promise.allSettled(this.#workers)
    if (this.#ready) await this.#boss.stop({ graceful: false, close: false }).catch((error: unknown) => this.#onError(error))
    await this.#listener.close()
    if (this.#owned) await this.#pool.end()
  }

  /** The schema of Spindle's own tables (for `pg_notify` payloads and diagnostics). */
  get schema(): string {
    return this.#schemaName
  }
}

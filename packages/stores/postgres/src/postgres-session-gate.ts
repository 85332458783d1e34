// SessionGate across processes: a lease row per session (expiry + a fencing token that only grows), FIFO waiters
// in a table ordered by ticket, heartbeats while held, LISTEN/NOTIFY to wake waiters and polling as the fallback.
import { randomUUID } from 'node:crypto'
import { AbortedError, type AcquireOptions, SessionBusyError, type SessionGate, type SessionGateState, type SessionLease } from '@spindle/core'
import type pg from 'pg'
import { type PostgresConnectionOptions, resolvePool } from './connection-options.js'
import { assertKey } from './jsonb-text.js'
import { mapPostgresError, sqlState } from './map-postgres-error.js'
import { runMigrations } from './migrations.js'
import { PostgresListener } from './postgres-listener.js'
import { quoteSchema } from './schema-name.js'
import { poolDatabase, type SqlDatabase } from './sql-database.js'

/** Options of `PostgresSessionGate`: the connection and schema, the lease's time to live, and the heartbeat and poll intervals. */
export interface PostgresSessionGateOptions extends PostgresConnectionOptions {
  /** How long a lease lives without a heartbeat: a crashed holder's session is free after this (default 15 s). */
  leaseTtlMs?: number
  /** How often a holder renews its lease (default a third of the TTL). */
  heartbeatMs?: number
  /** How often waiters re-check when no notification arrives (default 250 ms). */
  pollIntervalMs?: number
}

const channel = 'spindle_session_gate'

/**
 * No lock or transaction is held while a run goes on: the lease is a row with an expiry, so a connection idle in
 * a transaction on one session's row never stalls another session, and a dead holder is bypassed after the TTL.
 *
 * @example
 * const gate = new PostgresSessionGate({ pool, leaseTtlMs: 10_000 })
 * const lease = await gate.acquire('session-1', { owner: 'worker-a', onContention: 'queue', maxQueue: 16, queueTimeoutMs: 30_000 })
 * await sessions.append('session-1', entries, { fence: lease.token })
 * await lease.release()
 */
export class PostgresSessionGate implements SessionGate {
  readonly specificationVersion = 'v1' as const
  readonly #pool: pg.Pool
  readonly #database: SqlDatabase
  readonly #owned: boolean
  readonly #schemaName: string
  readonly #s: string
  readonly #ttlMs: number
  readonly #heartbeatMs: number
  readonly #pollMs: number
  readonly #listener: PostgresListener
  readonly #wakers = new Map<string, Set<() => void>>()
  readonly #leases = new Set<{ stop(): void }>()
  #ready: Promise<void> | undefined

  constructor(options: PostgresSessionGateOptions = {}) {
    const { pool, owned } = resolvePool(options, 'PostgresSessionGate')
    this.#pool = pool
    this.#database = poolDatabase(pool)
    this.#owned = owned
    this.#schemaName = options.schema ?? 'spindle'
    this.#s = quoteSchema(this.#schemaName)
    this.#ttlMs = options.leaseTtlMs ?? 15_000
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(this.#ttlMs / 3))
    this.#pollMs = options.pollIntervalMs ?? 250
    this.#listener = new PostgresListener(pool.options as pg.ClientConfig, channel, {
      onNotification: (payload) => {
        const { schema, sessionId } = JSON.parse(payload) as { schema: string; sessionId: string }
        if (schema === this.#schemaName) this.#wake(sessionId)
      },
      onReconnect: () => {
        for (const sessionId of this.#wakers.keys()) this.#wake(sessionId)
      },
    })
  }

  /** Creates the gate's tables if needed and starts listening (also done by the first `acquire`). */
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

  async acquire(sessionId: string, options: AcquireOptions): Promise<SessionLease> {
    assertKey(sessionId, 'session id')
    assertKey(options.owner, 'lease owner')
    await this.ready()
    options.signal?.throwIfAborted()
    const leaseId = randomUUID()
    await this.#ensureRow(sessionId)
    // Fast path: the session is free and nobody queues ahead.
    const direct = await this.#take(sessionId, options.owner, leaseId, undefined)
    if (direct !== undefined) return this.#lease(sessionId, options.owner, leaseId, direct)
    if (options.onContention === 'reject') {
      throw new SessionBusyError(`[spindle/store-postgres] session "${sessionId}" has an active run; retry later or use onContention: 'queue'`, {
        details: { sessionId },
      })
    }
    const ticket = await this.#enqueue(sessionId, options)
    const deadline = Date.now() + options.queueTimeoutMs
    try {
      for (;;) {
        const token = await this.#take(sessionId, options.owner, leaseId, ticket)
        if (token !== undefined) return this.#lease(sessionId, options.owner, leaseId, token)
        const remaining = deadline - Date.now()
        if (remaining <= 0) {
          throw new SessionBusyError(
            `[spindle/store-postgres] waited ${options.queueTimeoutMs} ms for session "${sessionId}" without getting it; raise queueTimeoutMs or retry later`,
            { details: { sessionId } },
          )
        }
        if (options.signal?.aborted)
          throw new AbortedError(`[spindle/store-postgres] waiting for session "${sessionId}" was aborted`, { cause: options.signal.reason })
        await this.#wait(sessionId, Math.min(remaining, this.#pollMs), options.signal)
        await this.#query(`UPDATE ${this.#s}.gate_waiters SET expires_at = now() + $2 * interval '1 millisecond' WHERE ticket = $1`, [ticket, this.#ttlMs])
      }
    } catch (error) {
      await this.#query(`DELETE FROM ${this.#s}.gate_waiters WHERE ticket = $1`, [ticket]).catch(() => {})
      await this.#notify(sessionId).catch(() => {})
      throw error
    }
  }

  async state(sessionId: string): Promise<SessionGateState> {
    await this.ready()
    const { rows } = await this.#query<{ holder: string | null; token: string; queued: string }>(
      `SELECT (SELECT holder FROM ${this.#s}.gate_leases WHERE session_id = $1 AND holder IS NOT NULL AND expires_at > now()) AS holder,
              (SELECT token FROM ${this.#s}.gate_leases WHERE session_id = $1) AS token,
              (SELECT count(*) FROM ${this.#s}.gate_waiters WHERE session_id = $1 AND expires_at > now()) AS queued`,
      [sessionId],
    )
    const row = rows[0]!
    return {
      sessionId,
      ...(row.holder !== null && { holder: row.holder, token: Number(row.token) }),
      queued: Number(row.queued),
    }
  }

  /** The backend pid of the LISTEN connection, when connected (tests terminate it to prove the polling fallback). */
  listenerBackendPid(): Promise<number | undefined> {
    return this.#listener.backendPid()
  }

  /** Stops heartbeats (leases then expire), stops listening, ends the pool if the gate created it. */
  async close(): Promise<void> {
    for (const lease of this.#leases) lease.stop()
    await this.#listener.close()
    if (this.#owned) await this.#pool.end()
  }

  async #ensureRow(sessionId: string): Promise<void> {
    await this.#query(`INSERT INTO ${this.#s}.gate_leases (session_id) VALUES ($1) ON CONFLICT (session_id) DO NOTHING`, [sessionId])
  }

  /**
   * One autocommit statement: takes the lease when it is free (or expired) and the caller is first in line
   * (no live waiter at all for a newcomer, the smallest live ticket for a waiter), bumping the token.
   * SKIP LOCKED: a row locked by someone else's transaction is "not now", never a wait that pins a connection.
   */
  async #take(sessionId: string, owner: string, leaseId: string, ticket: string | undefined): Promise<number | undefined> {
    const { rows } = await this.#query<{ token: string }>(
      `WITH candidate AS (
         SELECT session_id FROM ${this.#s}.gate_leases
         WHERE session_id = $1 AND (holder IS NULL OR expires_at <= now())
           AND (SELECT min(ticket) FROM ${this.#s}.gate_waiters WHERE session_id = $1 AND expires_at > now()) IS NOT DISTINCT FROM $4::bigint
         FOR UPDATE SKIP LOCKED
       ), taken AS (
         UPDATE ${this.#s}.gate_leases AS lease SET holder = $2, lease_id = $3, token = lease.token + 1, expires_at = now() + $5 * interval '1 millisecond'
         FROM candidate WHERE lease.session_id = candidate.session_id
         RETURNING lease.token
       ), dequeued AS (
         DELETE FROM ${this.#s}.gate_waiters WHERE ticket = $4::bigint AND EXISTS (SELECT 1 FROM taken)
       )
       SELECT token FROM taken`,
      [sessionId, owner, leaseId, ticket ?? null, this.#ttlMs],
    )
    return rows[0] === undefined ? undefined : Number(rows[0].token)
  }

  /**
   * Joins the queue; the lease row's lock makes the `maxQueue` count and the insert one step across processes.
   * One transaction of the retrying executor: a backend terminated before COMMIT runs it again on a new connection.
   */
  async #enqueue(sessionId: string, options: AcquireOptions): Promise<string> {
    let rows: Array<{ ticket: string }>
    try {
      rows = await this.#database.transaction(async (transaction) => {
        // Bounded: a stranger's transaction idling on this session's row cannot hold the waiter past its timeout.
        await transaction.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(options.queueTimeoutMs))}`)
        await transaction.query(`SELECT 1 FROM ${this.#s}.gate_leases WHERE session_id = $1 FOR UPDATE`, [sessionId])
        const inserted = await transaction.query<{ ticket: string }>(
          `INSERT INTO ${this.#s}.gate_waiters (session_id, owner, expires_at)
           SELECT $1, $2, now() + $4 * interval '1 millisecond'
           WHERE (SELECT count(*) FROM ${this.#s}.gate_waiters WHERE session_id = $1 AND expires_at > now()) < $3
           RETURNING ticket`,
          [sessionId, options.owner, options.maxQueue, this.#ttlMs],
        )
        return inserted.rows
      })
    } catch (error) {
      if (sqlState(error) === '55P03') {
        throw new SessionBusyError(
          `[spindle/store-postgres] session "${sessionId}" stayed locked by another transaction for ${options.queueTimeoutMs} ms; retry later`,
          { cause: error, details: { sessionId } },
        )
      }
      throw mapPostgresError(error, `queueing for session "${sessionId}"`)
    }
    if (rows[0] === undefined) {
      throw new SessionBusyError(
        `[spindle/store-postgres] session "${sessionId}" already has ${options.maxQueue} waiter(s) (maxQueue); retry later or raise maxQueue`,
        { details: { sessionId, maxQueue: options.maxQueue } },
      )
    }
    return rows[0].ticket
  }

  #lease(sessionId: string, owner: string, leaseId: string, token: number): SessionLease {
    const controller = new AbortController()
    let validUntil = Date.now() + this.#ttlMs
    let released = false
    const lose = (reason: string) => {
      if (!controller.signal.aborted) controller.abort(new AbortedError(`[spindle/store-postgres] lease on session "${sessionId}" was lost: ${reason}`))
      stop()
    }
    let beating = false
    const beat = async () => {
      if (beating) return
      beating = true
      const started = Date.now()
      try {
        const { rows } = await this.#query<{ ours: boolean; renewed: boolean }>(
          `WITH mine AS (
             SELECT session_id FROM ${this.#s}.gate_leases WHERE session_id = $1 AND lease_id = $2 FOR UPDATE SKIP LOCKED
           ), renewed AS (
             UPDATE ${this.#s}.gate_leases AS lease SET expires_at = now() + $3 * interval '1 millisecond'
             FROM mine WHERE lease.session_id = mine.session_id RETURNING 1
           )
           SELECT EXISTS (SELECT 1 FROM renewed) AS renewed,
                  EXISTS (SELECT 1 FROM ${this.#s}.gate_leases WHERE session_id = $1 AND lease_id = $2) AS ours`,
          [sessionId, leaseId, this.#ttlMs],
        )
        const row = rows[0]!
        if (row.renewed) validUntil = started + this.#ttlMs
        else if (!row.ours) lose('another holder took it over after it expired')
        else if (Date.now() >= validUntil) lose('its row stayed locked by another transaction past the lease TTL')
      } catch {
        // The database is unreachable: we cannot know, so give up once our own view of the TTL has passed.
        if (Date.now() >= validUntil) lose('no heartbeat reached the database within the lease TTL')
      } finally {
        beating = false
      }
    }
    const timer = setInterval(() => void beat(), this.#heartbeatMs)
    timer.unref?.()
    const handle = { stop: () => clearInterval(timer) }
    const stop = () => {
      handle.stop()
      this.#leases.delete(handle)
    }
    this.#leases.add(handle)
    return {
      sessionId,
      owner,
      token,
      signal: controller.signal,
      release: async () => {
        if (released) return
        released = true
        stop()
        await this.#query(`UPDATE ${this.#s}.gate_leases SET holder = NULL, lease_id = NULL, expires_at = NULL WHERE session_id = $1 AND lease_id = $2`, [
          sessionId,
          leaseId,
        ])
        await this.#notify(sessionId)
      },
    }
  }

  async #notify(sessionId: string): Promise<void> {
    await this.#query('SELECT pg_notify($1, $2)', [channel, JSON.stringify({ schema: this.#schemaName, sessionId })])
  }

  #wait(sessionId: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.#wakers.get(sessionId)
      if (wakers === undefined) this.#wakers.set(sessionId, (wakers = new Set()))
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        wakers!.delete(done)
        if (wakers!.size === 0 && this.#wakers.get(sessionId) === wakers) this.#wakers.delete(sessionId)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal?.addEventListener('abort', done, { once: true })
      wakers.add(done)
    })
  }

  #wake(sessionId: string): void {
    // Each waker removes itself; deleting the visited entry of a Set during for…of is safe.
    for (const wake of this.#wakers.get(sessionId) ?? []) wake()
  }

  async #query<R = Record<string, unknown>>(text: string, values: unknown[]): Promise<{ rows: R[] }> {
    try {
      // Retried on a new connection when the backend was terminated before the statement took effect.
      const result = await this.#database.query<R>(text, values)
      return { rows: result.rows }
    } catch (error) {
      throw mapPostgresError(error, 'using the session gate')
    }
  }
}

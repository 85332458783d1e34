// The small SQL surface the stores run on: a pg Pool here, or any driver speaking PostgreSQL (PGlite in tests).
import type pg from 'pg'

/** The rows of one statement (and, for a write, the number of rows it touched), as `pg` returns them. */
export interface SqlResult<R> {
  rows: R[]
  rowCount?: number | null
}

/** Options of one statement. */
export interface SqlQueryOptions {
  /**
   * A name under which the driver may keep the statement prepared on each connection (pg's named statements): the
   * server then parses and plans it once per connection. One name always stands for the same text. A driver
   * without prepared statements ignores it.
   */
  name?: string
}

/** Runs one statement with `$1…` parameters. */
export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, values?: unknown[], options?: SqlQueryOptions): Promise<SqlResult<R>>
  /**
   * True when statements issued without waiting for the previous one's result are sent together, in order, on
   * one connection (PostgreSQL's pipeline mode): a caller may then issue several before awaiting any. When
   * absent, a caller awaits each statement before issuing the next.
   */
  readonly pipelined?: boolean
}

export interface TransactionOptions {
  /**
   * Send BEGIN and the callback's statements without waiting for each reply, when the driver can (pg's
   * pipeline mode): the executor is then `pipelined`. COMMIT is still sent only once the callback has returned.
   */
  pipeline?: boolean
}

/** An executor that can also run a callback inside one transaction (committed on success, rolled back on error). */
export interface SqlDatabase extends SqlExecutor {
  transaction<T>(callback: (transaction: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>
}

/**
 * True when the database dropped the connection before the statement could take effect, so that running it again
 * on a new connection is safe: the backend was terminated (`pg_terminate_backend`, a restart: 57P01–57P03; the
 * server sends that error instead of a reply, and rolls back the open transaction), or the client was already
 * broken when the statement was handed to it (it was never sent). A socket that merely closed mid-statement is
 * not included: the statement may have committed.
 */
export function isDroppedConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (code === '57P01' || code === '57P02' || code === '57P03') return true
  const message = error instanceof Error ? error.message : ''
  return /Client has encountered a connection error and is not queryable/i.test(message)
}

/**
 * Attempts of a statement or transaction whose connection was dropped: waits of 50 ms doubling up to 1 s, about
 * 3.5 s in all. A transaction spans several round trips, and the retry may first draw idle clients whose FATAL the
 * event loop has not read yet, so a terminated backend can fail a few attempts in a row.
 */
const attempts = 8

/**
 * Checks a client out of `pool` with `onError` listening from the start. pg-pool removes its own listener on
 * checkout, and a promise would hand the client over a microtask later: a FATAL that arrives in the same packet as
 * a new connection's ReadyForQuery (a backend terminated as it connects) would find no listener, and the unheard
 * 'error' event would end the process. The callback runs before the parser reads on.
 */
export function checkOutClient(pool: pg.Pool, onError: (error: Error) => void): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    pool.connect((error, client) => {
      if (error !== undefined && error !== null) return reject(error)
      client!.on('error', onError)
      resolve(client!)
    })
  })
}

/**
 * Wraps a pg Pool: each transaction checks out one client, and gives it back (destroyed if its connection broke).
 * A statement (or a whole transaction) that fails because its connection was dropped before it took effect is run
 * again on a fresh connection, up to eight attempts over about 3.5 s, so a terminated backend does not fail a run.
 */
export function poolDatabase(pool: pg.Pool): SqlDatabase {
  const retry = async <T>(operation: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation()
      } catch (error) {
        if (attempt >= attempts || !(isDroppedConnection(error) || lostBeforeCommit.has(error as object))) throw error
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)))
      }
    }
  }
  return {
    query: <R>(text: string, values?: unknown[], options?: SqlQueryOptions) =>
      retry(async () => {
        const result = options?.name === undefined ? await pool.query(text, values as unknown[]) : await pool.query({ text, values, name: options.name })
        return { rows: result.rows as R[], rowCount: result.rowCount }
      }),
    transaction<T>(callback: (transaction: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      return retry(async () => {
        let broken: Error | undefined
        // A checked-out client has no pool listener: a connection dropped between two statements would otherwise be an
        // unhandled 'error' event that kills the process. The statement in progress (or the next one) fails instead.
        const onError = (error: Error) => {
          broken = error
        }
        const client = await checkOutClient(pool, onError)
        const mode = options.pipeline === true ? pipelineMode(client) : undefined
        const pipelined = mode !== undefined
        let commitSent = false
        try {
          if (pipelined) {
            // BEGIN goes out with the statements that follow it, in one write. It cannot fail alone on an idle,
            // healthy connection (checked just above): a broken connection fails every statement behind it too.
            if (mode === 'switch') setPipeline(client, true)
            const begun = client.query('BEGIN')
            begun.catch(() => {})
            const value = await callback(clientExecutor(client, true))
            await begun
            if (broken) throw broken
            // COMMIT only now: every statement's result has been seen (an empty reservation throws before it).
            commitSent = true
            await client.query('COMMIT')
            return value
          }
          await client.query('BEGIN')
          const value = await callback(clientExecutor(client, false))
          // The connection broke after the last statement: nothing was committed, the error says so (and is retried).
          if (broken) throw broken
          commitSent = true
          await client.query('COMMIT')
          return value
        } catch (error) {
          if (isDroppedConnection(error)) broken = error as Error
          else if (!commitSent && (broken !== undefined || isConnectionLoss(error))) {
            // The connection went away before COMMIT was sent: the server rolls the open transaction back, so the
            // whole transaction runs again on a new connection. (A backend terminated while it still had pipelined
            // statements to read resets the socket: the client sees ECONNRESET, not the server's 57P01.)
            broken ??= error as Error
            if (typeof error === 'object' && error !== null) lostBeforeCommit.add(error)
          }
          try {
            await client.query('ROLLBACK')
          } catch (rollbackError) {
            broken = rollbackError as Error
          }
          throw error
        } finally {
          if (mode === 'switch') setPipeline(client, false)
          client.removeListener('error', onError)
          client.release(broken)
        }
      })
    },
  }
}

/** Errors of a transaction whose connection was lost before its COMMIT was sent (nothing of it was committed). */
const lostBeforeCommit = new WeakSet<object>()

/** The socket closed or reset under the client (no server error code: the outcome of an autocommit statement is unknown). */
function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ECONNRESET' || code === 'EPIPE') return true
  const message = error instanceof Error ? error.message : ''
  return /Connection terminated|not queryable/i.test(message)
}

/**
 * Whether this transaction can pipeline on `client`: pg has a pipeline mode (`pipeline` in the client config; pg
 * 8.23 does, an older pg runs statement by statement), where queries are written as soon as they are issued, each
 * with its own Sync, and answered in order. A pool client not configured with it is switched into it for one
 * transaction, only when idle (no query in flight, no open transaction), and switched back before it is released.
 */
function pipelineMode(client: pg.PoolClient): 'configured' | 'switch' | undefined {
  const internals = client as unknown as { pipeline?: unknown; _queryQueue?: unknown[]; _sentQueryQueue?: unknown[]; readyForQuery?: boolean }
  if (typeof internals.pipeline !== 'boolean' || !Array.isArray(internals._sentQueryQueue) || client.getTransactionStatus?.() !== 'I') return undefined
  if (internals.pipeline) return 'configured'
  return internals._queryQueue?.length === 0 && internals.readyForQuery === true ? 'switch' : undefined
}

function setPipeline(client: pg.PoolClient, on: boolean): void {
  ;(client as unknown as { pipeline: boolean }).pipeline = on
}

/** Statements on one checked-out client (a transaction's); `pipelined` when the client is in pipeline mode. */
function clientExecutor(client: pg.PoolClient, pipelined: boolean): SqlExecutor {
  return {
    ...(pipelined ? { pipelined } : {}),
    query: async <R>(text: string, values?: unknown[], options?: SqlQueryOptions) => {
      const result = options?.name === undefined ? await client.query(text, values as unknown[]) : await client.query({ text, values, name: options.name })
      return { rows: result.rows as R[], rowCount: result.rowCount }
    },
  }
}

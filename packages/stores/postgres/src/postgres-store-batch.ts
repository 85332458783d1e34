// StoreBatch on PostgreSQL: a batch is one statement (one round trip, atomic alone) when no row is written twice
// in it; otherwise, or when that statement is refused, its writes run in one transaction on one connection,
// through the same functions as the single-store methods (runs of journal starts, finishes or events share one).
import type { BatchedStores, StoreBatch, StoreWrite, StoreWriteResult } from '@spindle/core'
import { batchStatement, statementName } from './batch-statement.js'
import { mapPostgresError, sqlState } from './map-postgres-error.js'
import { finishExecutions, startExecutions } from './postgres-execution-store.js'
import { insertRunEvents, updateRunRecord } from './postgres-run-store.js'
import { appendToSession } from './postgres-session-store.js'
import { saveSnapshot } from './postgres-snapshot-store.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'

type Write<T extends StoreWrite['type']> = Extract<StoreWrite, { type: T }>

/** Consecutive writes applied by one statement: starts or finishes of distinct keys, or event appends. */
type Group =
  | { type: 'execution.start'; writes: Array<Write<'execution.start'>> }
  | { type: 'execution.finish'; writes: Array<Write<'execution.finish'>> }
  | { type: 'run.events'; writes: Array<Write<'run.events'>> }
  | { type: 'single'; writes: [Write<'session.append' | 'run.update' | 'snapshot.save'>] }

/**
 * The batch of the four PostgreSQL stores of one `postgresStores()` set (each of them exposes it as `.batch`).
 *
 * @example
 * const stores = postgresStores({ connectionString: process.env.DATABASE_URL })
 * const [entries] = await stores.sessions.batch!.write([
 *   { type: 'session.append', sessionId: 's-1', entries: [{ kind: 'message', message: { role: 'user', content: 'hi' } }] },
 *   { type: 'run.update', runId: 'run-1', patch: { step: 1 } },
 * ])
 */
export class PostgresStoreBatch implements StoreBatch {
  readonly specificationVersion = 'v1' as const
  readonly stores: BatchedStores
  readonly #database: SqlDatabase
  readonly #s: string
  readonly #prepare: boolean

  /**
   * `schema` is already quoted; `stores` are the four stores writing to the same database and schema. With
   * `preparedStatements` (the default), a batch statement is prepared once per connection under a name.
   */
  constructor(database: SqlDatabase, schema: string, stores: BatchedStores, options: { preparedStatements?: boolean } = {}) {
    this.#database = database
    this.#s = schema
    this.stores = stores
    this.#prepare = options.preparedStatements !== false
  }

  async write(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    if (writes.length === 0) return []
    if (writes.length === 1) return this.#writeInTransaction(writes)
    let statement: ReturnType<typeof batchStatement>
    try {
      statement = batchStatement(this.#s, writes)
    } catch {
      // A write's validation failed (a key PostgreSQL cannot store): the transaction path throws it, named.
      return this.#writeInTransaction(writes)
    }
    if (statement === undefined) return this.#writeInTransaction(writes)
    let row: Record<string, unknown>
    try {
      const name = this.#prepare ? statementName(statement.text) : undefined
      row = (await this.#database.query(statement.text, statement.values, name === undefined ? undefined : { name })).rows[0]!
    } catch (error) {
      // The server refused the statement (its guard: a stale fence, another lastSeq, a missing row; or any error
      // of a write): nothing of it was applied. The transaction path writes the batch again, where each write
      // fails alone with its own typed error (or succeeds, if the database changed meanwhile).
      if (refusedByServer(error)) return this.#writeInTransaction(writes)
      throw mapPostgresError(error, `${describeWrite(writes[0]!)} (in a batch of ${writes.length} writes, sent as one statement)`)
    }
    try {
      return await statement.settle(row, this.#database)
    } catch (error) {
      throw mapPostgresError(error, `reading back a batch of ${writes.length} writes (written)`)
    }
  }

  /** The writes in one transaction (one statement alone needs none), statement after statement or pipelined. */
  async #writeInTransaction(writes: readonly StoreWrite[]): Promise<StoreWriteResult[]> {
    let failing: StoreWrite = writes[0]!
    const groups = groupWrites(writes)
    const apply = async (executor: SqlExecutor): Promise<StoreWriteResult[]> => {
      const results: StoreWriteResult[] = []
      if (executor.pipelined && groups.length > 1 && independent(writes)) {
        // Every group's statement is issued at once, in order (one write to the server, answered in order): a
        // batch is two round trips, BEGIN + statements and COMMIT, whatever its size. The server still runs them
        // one after another; a group's follow-up read (a terminal journal row, why an append reserved nothing)
        // comes after, and sees nothing a later write of this batch could have changed (no key is written twice).
        const settled = await Promise.allSettled(groups.map((group) => this.#apply(executor, group)))
        for (let index = 0; index < settled.length; index++) {
          const outcome = settled[index]!
          if (outcome.status === 'rejected') {
            failing = groups[index]!.writes[0]
            throw outcome.reason
          }
          results.push(...outcome.value)
        }
        return results
      }
      for (const group of groups) {
        failing = group.writes[0]
        results.push(...(await this.#apply(executor, group)))
      }
      return results
    }
    try {
      // Every single write is one modifying statement (atomic alone): no transaction, no BEGIN / COMMIT round trips.
      // Errors are mapped out here, so that the pool still sees a dropped connection and runs the batch again.
      return writes.length === 1 ? await apply(this.#database) : await this.#database.transaction(apply, { pipeline: true })
    } catch (error) {
      throw mapPostgresError(error, `${describeWrite(failing)}${writes.length > 1 ? ` (in a batch of ${writes.length} writes, none applied)` : ''}`)
    }
  }

  async #apply(executor: SqlExecutor, group: Group): Promise<StoreWriteResult[]> {
    switch (group.type) {
      case 'execution.start':
        return startExecutions(
          executor,
          this.#s,
          group.writes.map((write) => write.execution),
        )
      case 'execution.finish':
        return finishExecutions(executor, this.#s, group.writes)
      case 'run.events':
        await insertRunEvents(executor, this.#s, group.writes)
        return group.writes.map(() => undefined)
      case 'single': {
        const [write] = group.writes
        if (write.type === 'session.append') return [await appendToSession(executor, this.#s, write)]
        if (write.type === 'run.update') return [await updateRunRecord(executor, this.#s, write.runId, write.patch)]
        await saveSnapshot(executor, this.#s, write.snapshot)
        return [undefined]
      }
    }
  }
}

/**
 * True when the server answered the statement with an error (so it applied nothing) that is not about the
 * connection or the server's state (class 08, 53, 57: those are the caller's to retry).
 */
function refusedByServer(error: unknown): boolean {
  const state = sqlState(error)
  return state !== undefined && !/^(08|53|57)/.test(state)
}

/** Splits writes into runs one statement can apply, in order; a repeated key starts a new run (an upsert touches a row once). */
function groupWrites(writes: readonly StoreWrite[]): Group[] {
  const groups: Group[] = []
  let keys = new Set<string>()
  for (const write of writes) {
    const last = groups.at(-1)
    if (write.type === 'execution.start' || write.type === 'execution.finish') {
      const key = write.type === 'execution.start' ? write.execution.key : write.key
      if (last?.type === write.type && !keys.has(key)) (last.writes as StoreWrite[]).push(write)
      else {
        groups.push({ type: write.type, writes: [write] } as Group)
        keys = new Set()
      }
      keys.add(key)
    } else if (write.type === 'run.events') {
      if (last?.type === 'run.events') last.writes.push(write)
      else groups.push({ type: 'run.events', writes: [write] })
    } else groups.push({ type: 'single', writes: [write] })
  }
  return groups
}

/**
 * True when no journal key is written twice in the batch: then a group's follow-up read cannot observe a later
 * write of the same batch (a finish of a key never started must fail even if a later start creates it).
 */
function independent(writes: readonly StoreWrite[]): boolean {
  const keys = new Set<string>()
  for (const write of writes) {
    if (write.type !== 'execution.start' && write.type !== 'execution.finish') continue
    const key = write.type === 'execution.start' ? write.execution.key : write.key
    if (keys.has(key)) return false
    keys.add(key)
  }
  return true
}

/** The action a write's single-store method names in its errors. */
function describeWrite(write: StoreWrite): string {
  switch (write.type) {
    case 'session.append':
      return `appending to session "${write.sessionId}"`
    case 'execution.start':
      return `starting execution "${write.execution.key}"`
    case 'execution.finish':
      return `finishing execution "${write.key}"`
    case 'run.events':
      return `appending events of run "${write.runId}"`
    case 'run.update':
      return `updating run "${write.runId}"`
    case 'snapshot.save':
      return `saving snapshot ${write.snapshot.version} of run "${write.snapshot.runId}"`
  }
}

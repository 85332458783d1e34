// SnapshotStore on PostgreSQL: one row per (run, version); saving a version again replaces it.
import type { JsonObject, RunSnapshot, SnapshotStore, StoreBatch } from '@spindle/core'
import { assertKey, fromJsonb, toJsonbText } from './jsonb-text.js'
import { mapPostgresError } from './map-postgres-error.js'
import type { SqlDatabase, SqlExecutor } from './sql-database.js'

interface SnapshotRow {
  run_id: string
  session_id: string
  version: string | number
  state: JsonObject
  created_at: string | number
}

/**
 * @example
 * const snapshots = new PostgresSnapshotStore(poolDatabase(pool), '"spindle"')
 * const latest = await snapshots.latest('run-1')
 */
export class PostgresSnapshotStore implements SnapshotStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  /** Set by `postgresStores()`: the batch shared by the four stores of one set. */
  batch?: StoreBatch

  constructor(database: SqlDatabase, schema: string) {
    this.#database = database
    this.#s = schema
  }

  async save(snapshot: RunSnapshot): Promise<void> {
    try {
      await saveSnapshot(this.#database, this.#s, snapshot)
    } catch (error) {
      throw mapPostgresError(error, `saving snapshot ${snapshot.version} of run "${snapshot.runId}"`)
    }
  }

  async latest(runId: string): Promise<RunSnapshot | undefined> {
    return this.#one(
      `SELECT * FROM ${this.#s}.snapshots WHERE run_id = $1 ORDER BY version DESC LIMIT 1`,
      [runId],
      `reading the latest snapshot of run "${runId}"`,
    )
  }

  async get(runId: string, version: number): Promise<RunSnapshot | undefined> {
    return this.#one(`SELECT * FROM ${this.#s}.snapshots WHERE run_id = $1 AND version = $2`, [runId, version], `reading snapshot ${version} of run "${runId}"`)
  }

  async list(runId: string): Promise<RunSnapshot[]> {
    try {
      const { rows } = await this.#database.query<SnapshotRow>(`SELECT * FROM ${this.#s}.snapshots WHERE run_id = $1 ORDER BY version`, [runId])
      return rows.map(toSnapshot)
    } catch (error) {
      throw mapPostgresError(error, `listing snapshots of run "${runId}"`)
    }
  }

  async deleteRun(runId: string): Promise<void> {
    try {
      await this.#database.query(`DELETE FROM ${this.#s}.snapshots WHERE run_id = $1`, [runId])
    } catch (error) {
      throw mapPostgresError(error, `deleting snapshots of run "${runId}"`)
    }
  }

  async #one(sql: string, values: unknown[], action: string): Promise<RunSnapshot | undefined> {
    try {
      const { rows } = await this.#database.query<SnapshotRow>(sql, values)
      return rows[0] === undefined ? undefined : toSnapshot(rows[0])
    } catch (error) {
      throw mapPostgresError(error, action)
    }
  }
}

/** `save` as one upsert (the single method and a batch share it); pg errors are thrown unmapped. */
export async function saveSnapshot(executor: SqlExecutor, schema: string, snapshot: RunSnapshot): Promise<void> {
  assertKey(snapshot.runId, 'snapshot runId')
  assertKey(snapshot.sessionId, 'snapshot sessionId')
  await executor.query(
    `INSERT INTO ${schema}.snapshots (run_id, version, session_id, state, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (run_id, version) DO UPDATE SET session_id = EXCLUDED.session_id, state = EXCLUDED.state, created_at = EXCLUDED.created_at`,
    [snapshot.runId, snapshot.version, snapshot.sessionId, toJsonbText(snapshot.state), snapshot.createdAt],
  )
}

function toSnapshot(row: SnapshotRow): RunSnapshot {
  return { runId: row.run_id, sessionId: row.session_id, version: Number(row.version), state: fromJsonb(row.state), createdAt: Number(row.created_at) }
}

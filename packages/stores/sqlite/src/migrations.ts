// Versioned schema migrations, applied on open inside one IMMEDIATE transaction and tracked by PRAGMA user_version.
import { StoreError } from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'

export interface Migration {
  version: number
  description: string
  up(database: BetterSqlite3.Database): void
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, session log, runs, run events, executions, snapshots, embeddings, artifacts',
    up(database) {
      database.exec(`
        CREATE TABLE sessions (
          id TEXT PRIMARY KEY,
          resource_id TEXT,
          data TEXT NOT NULL,
          last_seq INTEGER NOT NULL DEFAULT 0,
          fence INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id DESC);
        CREATE INDEX sessions_by_resource ON sessions (resource_id, updated_at DESC, id DESC);

        CREATE TABLE session_entries (
          session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          kind TEXT NOT NULL,
          run_id TEXT,
          body TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (session_id, seq)
        );
        CREATE INDEX session_entries_by_kind ON session_entries (session_id, kind, seq);

        CREATE TABLE runs (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          status TEXT NOT NULL,
          idempotency_key TEXT,
          record TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX runs_by_idempotency_key ON runs (session_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE INDEX runs_by_creation ON runs (created_at DESC, id DESC);
        CREATE INDEX runs_by_session ON runs (session_id, created_at DESC, id DESC);
        CREATE INDEX runs_by_status ON runs (status, created_at DESC, id DESC);

        CREATE TABLE run_events (
          run_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          event TEXT NOT NULL,
          PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE executions (
          position INTEGER PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          run_id TEXT NOT NULL,
          status TEXT NOT NULL,
          record TEXT NOT NULL
        );
        CREATE INDEX executions_by_run ON executions (run_id, position);

        CREATE TABLE snapshots (
          run_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          session_id TEXT NOT NULL,
          state TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (run_id, version)
        );

        CREATE TABLE embeddings (
          id TEXT PRIMARY KEY,
          namespace TEXT,
          dimension INTEGER NOT NULL,
          vector BLOB NOT NULL,
          content TEXT,
          metadata TEXT NOT NULL
        );
        CREATE INDEX embeddings_by_namespace ON embeddings (namespace, id);

        CREATE TABLE artifacts (
          id TEXT PRIMARY KEY,
          blob_id TEXT NOT NULL,
          size INTEGER NOT NULL,
          chunk_size INTEGER NOT NULL,
          data TEXT NOT NULL,
          created_at INTEGER NOT NULL
        );
        CREATE INDEX artifacts_by_creation ON artifacts (created_at DESC, id DESC);

        CREATE TABLE artifact_uploads (
          blob_id TEXT PRIMARY KEY,
          started_at INTEGER NOT NULL
        );

        CREATE TABLE artifact_chunks (
          blob_id TEXT NOT NULL,
          idx INTEGER NOT NULL,
          data BLOB NOT NULL,
          PRIMARY KEY (blob_id, idx)
        );
      `)
    },
  },
  {
    version: 2,
    description:
      'fewer pages per durable step: no sessions index on updated_at, a compactions-only kind index on the session log, run events appended at the end',
    // Every b-tree a commit touches is one more 4 KiB WAL page, and an insert in the middle of an index b-tree
    // (every key starting with a random session or run id) soon rebalances its leaf with two siblings: 3-4 more.
    // Measured per step of a durable run (pages per b-tree), this keeps what writes fewest pages: see the
    // package README. Tables are rebuilt by copying their rows, so every row and value is kept as it was.
    up(database) {
      database.exec(`
        -- sessions.updated_at changes on every append: an index keyed on it was rewritten twice per append.
        -- listSessions sorts instead (a rare call); resource_id never changes after createSession.
        DROP INDEX sessions_by_update;
        DROP INDEX sessions_by_resource;
        CREATE INDEX sessions_by_resource ON sessions (resource_id) WHERE resource_id IS NOT NULL;

        -- The log keeps its rowid table (rows appended at the end of the table, whatever their size) and its
        -- (session_id, seq) key; the kind index now holds compactions only: "the latest compaction" stays a
        -- search, and appending a message no longer touches it. (Clustered WITHOUT ROWID wrote fewer pages
        -- for ~200-byte messages, but many more for 1 KB ones: a whole message in every index leaf.)
        DROP INDEX session_entries_by_kind;
        CREATE INDEX session_entries_compactions ON session_entries (session_id, seq) WHERE kind = 'compaction';

        -- Events, ~6 rows a step: as a rowid table they are appended at the end of the table (a full last page
        -- just gets a new one), and only the small (run_id, seq) key index takes inserts in the middle; WITHOUT
        -- ROWID, every event landed mid-tree and rebalanced leaves of whole events.
        CREATE TABLE run_events_v2 (
          run_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          event TEXT NOT NULL,
          PRIMARY KEY (run_id, seq)
        );
        INSERT INTO run_events_v2 (run_id, seq, event) SELECT run_id, seq, event FROM run_events ORDER BY run_id, seq;
        DROP TABLE run_events;
        ALTER TABLE run_events_v2 RENAME TO run_events;
      `)
    },
  },
  {
    version: 3,
    description: 'a step no longer rewrites the session row (lastSeq is read from the log), and the events of one append are one row',
    // Measured per tool step (src/__fixtures__/measure-steps.ts): the session row was one more page in each of
    // the step's two commits, and six events a step were six entries in the (run_id, seq) index, whose leaves
    // split every few steps. Both were among the largest costs left once a step was two commits.
    up(database) {
      database.exec(`
        -- lastSeq is the log's last seq (the key index answers it in one search), and a session's updatedAt is
        -- the later of its own updated_at (created, renamed) and its last entry's created_at: an append writes
        -- the log only. The fence stays on the session row, written only when a newer one arrives.
        ALTER TABLE sessions DROP COLUMN last_seq;

        -- One row per append of contiguous seqs (first_seq..last_seq, a JSON array): keyed on its last seq, so
        -- the run's newest seq is one search, and the rows of a run never overlap (see sqlite-run-store.ts).
        CREATE TABLE run_events_v3 (
          run_id TEXT NOT NULL,
          last_seq INTEGER NOT NULL,
          first_seq INTEGER NOT NULL,
          events TEXT NOT NULL,
          PRIMARY KEY (run_id, last_seq)
        );
        INSERT INTO run_events_v3 (run_id, last_seq, first_seq, events)
          SELECT run_id, seq, seq, '[' || event || ']' FROM run_events ORDER BY run_id, seq;
        DROP TABLE run_events;
        ALTER TABLE run_events_v3 RENAME TO run_events;

      `)
    },
  },
]

/** The schema version this build of the package writes and understands. */
export const sqliteSchemaVersion: number = migrations[migrations.length - 1]!.version

export function readSchemaVersion(database: BetterSqlite3.Database): number {
  return database.pragma('user_version', { simple: true }) as number
}

function newerSchemaError(found: number, where: string): StoreError {
  return new StoreError(
    `[spindle/store-sqlite] The database ${where} has schema version ${found}, newer than the version ${sqliteSchemaVersion} this @spindle/store-sqlite knows; it was written by a newer release: upgrade @spindle/store-sqlite (downgrading a database is not supported)`,
    { details: { found, supported: sqliteSchemaVersion } },
  )
}

/** The tables every schema version (1 to `sqliteSchemaVersion`) has. */
const spindleTables = [
  'sessions',
  'session_entries',
  'runs',
  'run_events',
  'executions',
  'snapshots',
  'embeddings',
  'artifacts',
  'artifact_uploads',
  'artifact_chunks',
] as const

function presentSpindleTables(database: BetterSqlite3.Database): string[] {
  return database
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${spindleTables.map(() => '?').join(', ')}) ORDER BY name`)
    .pluck()
    .all(...spindleTables) as string[]
}

function notSpindleError(where: string, why: string, details: Record<string, unknown>): StoreError {
  return new StoreError(
    `[spindle/store-sqlite] The database ${where} is not a Spindle database: ${why}; it belongs to another application, so give Spindle a file of its own (a new \`path\`)`,
    { details },
  )
}

/**
 * Checks that a file whose `user_version` is `version` holds Spindle's tables. Other applications use
 * `user_version` too: such a file must be refused, not migrated from the middle (or called "newer").
 */
function assertSpindleSchema(database: BetterSqlite3.Database, version: number, where: string): void {
  const present = presentSpindleTables(database)
  if (version > sqliteSchemaVersion ? present.length > 0 : present.length === spindleTables.length) return
  const missing = spindleTables.filter((table) => !present.includes(table))
  throw notSpindleError(where, `its schema version (PRAGMA user_version) is ${version}, but it lacks the Spindle tables ${missing.join(', ')}`, {
    found: version,
    missing,
  })
}

/** A file without a schema version must not hold tables with Spindle's names already (another application's). */
function assertNoSpindleTables(database: BetterSqlite3.Database, where: string): void {
  const present = presentSpindleTables(database)
  if (present.length === 0) return
  throw notSpindleError(where, `it has no Spindle schema version, yet holds tables named ${present.join(', ')} that Spindle did not create`, {
    found: 0,
    clashing: present,
  })
}

/**
 * Brings the schema up to `sqliteSchemaVersion`. Safe when several processes open the same file at once:
 * the version is re-read after the write lock is taken, so each migration runs once.
 * Throws `StoreError` when the file's schema is newer than this code, or when the file is another application's
 * database (a `user_version` without Spindle's tables, or tables with Spindle's names without a version).
 */
export function migrateDatabase(database: BetterSqlite3.Database, where: string, options: { readonly?: boolean } = {}): void {
  const found = readSchemaVersion(database)
  // A committed version always comes with its tables (a migration is one transaction): checked outside the lock.
  if (found > 0) assertSpindleSchema(database, found, where)
  if (found > sqliteSchemaVersion) throw newerSchemaError(found, where)
  if (found === sqliteSchemaVersion) return
  if (options.readonly) {
    throw new StoreError(
      `[spindle/store-sqlite] The database ${where} has schema version ${found} but this release needs ${sqliteSchemaVersion}; open it once without \`readonly: true\` to migrate it`,
    )
  }
  // Tables are rebuilt by copy: foreign keys are not enforced meanwhile (SQLite's documented procedure for a
  // rebuild), so rows are copied exactly as they are. The pragma is a no-op inside a transaction: set it around.
  const foreignKeys = database.pragma('foreign_keys', { simple: true }) as number
  if (foreignKeys) database.pragma('foreign_keys = OFF')
  try {
    database
      .transaction(() => {
        const current = readSchemaVersion(database)
        // Under the write lock: another process may have migrated the file since `found` was read.
        if (current === 0) assertNoSpindleTables(database, where)
        else assertSpindleSchema(database, current, where)
        if (current > sqliteSchemaVersion) throw newerSchemaError(current, where)
        for (const migration of migrations) {
          if (migration.version > current) migration.up(database)
        }
        database.pragma(`user_version = ${sqliteSchemaVersion}`)
      })
      .immediate()
  } finally {
    if (foreignKeys) database.pragma('foreign_keys = ON')
  }
}

// Group commit: while runs write concurrently, the writes submitted on one connection in a loop turn are committed
// together, in one BEGIN IMMEDIATE transaction at the end of the turn, instead of one transaction each. A commit's cost is mostly fixed (file locks, the WAL pages of every b-tree it touches), so
// concurrent runs share it. A lone writer commits at once, as before: waiting a turn would cost it a few µs a
// commit for nothing. Whether writers are concurrent is found by probing (see `submit`).
import type BetterSqlite3 from 'better-sqlite3'

/** A write waiting for the next group: what it applies and whom to tell. */
interface PendingWrite {
  apply: () => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/**
 * The group commit of one connection. `submit(apply)` resolves once `apply` is durable (or rejects, with nothing
 * of it written), exactly as a transaction of its own would. The group's writes run one after the other in its
 * transaction; when one throws, or the transaction itself fails (BEGIN aside: COMMIT, or an error that made SQLite
 * roll it back), nothing of the group is kept and each write runs again alone, in its own transaction, so a write
 * that fails fails alone and the others commit. `apply` may therefore run twice: it must depend on nothing but the
 * database (every store's writes are prepared this way).
 */
export class GroupCommit {
  readonly #database: BetterSqlite3.Database
  #pending: PendingWrite[] = []
  #scheduled = false
  /** Writes wait for the end of the loop turn (recent groups held several writes), or commit at once. */
  #deferring = false
  /** The recent groups' mean size (a moving average): writes commit at once again when it falls near one. */
  #meanGroupSize = 1
  /** Writes committed at once since the last probe. */
  #sinceProbe = 0
  /** A write's own transaction. */
  readonly #alone: BetterSqlite3.Transaction<(apply: () => unknown) => unknown>
  #begin: BetterSqlite3.Statement | undefined
  #commit: BetterSqlite3.Statement | undefined
  #rollback: BetterSqlite3.Statement | undefined

  constructor(database: BetterSqlite3.Database) {
    this.#database = database
    this.#alone = database.transaction((apply: () => unknown) => apply())
  }

  /**
   * Applies `apply` (synchronous, no transaction of its own needed) in a transaction: at once when writes are
   * not concurrent, else in the loop turn's group. Resolves with its result once committed. While writes commit
   * at once, every `probeEvery`-th one waits for the end of the turn instead: if other writes join it, writers
   * are concurrent and the following writes wait too, until the recent groups hold hardly more than one write.
   */
  submit<T>(apply: () => T): Promise<T> {
    if (this.#pending.length === 0 && !this.#deferring && ++this.#sinceProbe < probeEvery) {
      try {
        return Promise.resolve(this.#alone.immediate(apply) as T)
      } catch (error) {
        return Promise.reject(error)
      }
    }
    this.#sinceProbe = 0
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ apply, resolve: resolve as (value: unknown) => void, reject })
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(this.#flushScheduled)
      }
    })
  }

  /** Commits the pending writes now (before the connection closes, or before a write that does not wait for the group). */
  flush(): void {
    if (this.#pending.length === 0) return
    const writes = this.#pending
    this.#pending = []
    if (writes.length === 1 || !this.#database.open || this.#database.inTransaction) {
      for (const write of writes) this.#applyAlone(write)
      return
    }
    this.#commitGroup(writes)
  }

  readonly #flushScheduled = (): void => {
    this.#scheduled = false
    const size = this.#pending.length
    if (!this.#deferring) {
      // A probe: others joined it, so writers are concurrent.
      if (size > 1) {
        this.#deferring = true
        this.#meanGroupSize = size
      }
    } else {
      // Waiting for the turn costs a lone write a few µs and saves a group of two a whole commit: wait while the
      // groups hold more than one write on average.
      this.#meanGroupSize += (size - this.#meanGroupSize) / 8
      if (this.#meanGroupSize < stopBelowMeanGroupSize) this.#deferring = false
    }
    this.flush()
  }

  #applyAlone(write: PendingWrite): void {
    let result: unknown
    try {
      result = this.#alone.immediate(write.apply)
    } catch (error) {
      write.reject(error)
      return
    }
    write.resolve(result)
  }

  #commitGroup(writes: PendingWrite[]): void {
    const database = this.#database
    this.#begin ??= database.prepare('BEGIN IMMEDIATE')
    this.#commit ??= database.prepare('COMMIT')
    this.#rollback ??= database.prepare('ROLLBACK')
    try {
      this.#begin.run()
    } catch (error) {
      // The write lock could not be taken (busy past the timeout): each write would have failed alike.
      for (const write of writes) write.reject(error)
      return
    }
    // No savepoint per write: a savepoint is two more statements and a copy of every page a write first touches
    // (its sub-journal). Writes rarely fail; when one does, the group is rolled back whole and every write runs
    // again alone, in its own transaction, with the outcome it has on its own (as when the group is lost).
    const results: unknown[] = []
    let failed = false
    for (let index = 0; index < writes.length; index++) {
      try {
        results[index] = writes[index]!.apply()
      } catch {
        failed = true
        break
      }
    }
    if (!failed) {
      try {
        this.#commit.run()
      } catch {
        failed = true
      }
    }
    if (failed) {
      if (database.inTransaction) this.#rollback.run()
      for (const write of writes) this.#applyAlone(write)
      return
    }
    for (let index = 0; index < writes.length; index++) writes[index]!.resolve(results[index])
  }
}

/** While writes commit at once, one in this many waits for the end of the loop turn to see whether others join it. */
const probeEvery = 32
/** Writes commit at once again when the recent groups hold fewer writes than this on average. */
const stopBelowMeanGroupSize = 1.25

const groups = new WeakMap<BetterSqlite3.Database, GroupCommit>()

/** The group commit of `database`, shared by every store open on that connection. */
export function groupCommitOf(database: BetterSqlite3.Database): GroupCommit {
  let group = groups.get(database)
  if (group === undefined) {
    group = new GroupCommit(database)
    groups.set(database, group)
  }
  return group
}

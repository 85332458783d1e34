// Group commit: a lone writer commits at once; concurrent writes submitted in one loop turn share one transaction;
// each resolves once durable; when one fails (or the group is lost) every write runs again on its own, so a
// failing write rolls back alone.
import BetterSqlite3 from 'better-sqlite3'
import { DuplicateError, type StoreWrite } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import { GroupCommit } from './group-commit.js'
import { sqliteStores } from './index.js'

const message = (text: string) => ({ kind: 'message' as const, message: { role: 'user' as const, content: text } })

/** Many writes at once, as concurrent runs make them: the probe finds them concurrent, so writes now wait for the turn's group. */
async function concurrently(write: (index: number) => Promise<unknown>): Promise<void> {
  await Promise.all(Array.from({ length: 40 }, (_, index) => write(index)))
}

/** Stores on a connection whose statements are counted: how many transactions committed. */
function countedStores() {
  const path = tempDatabasePath()
  const statements: string[] = []
  const database = new BetterSqlite3(path, { verbose: (sql) => statements.push(String(sql)) })
  const stores = sqliteStores({ database, configure: true })
  const commits = () => statements.filter((sql) => sql === 'COMMIT').length
  return { path, database, stores, commits, close: () => (stores.close(), database.close()) }
}

/**
 * A group commit on a new database with one table `t`, warmed so its writes now wait for the turn's group; `insert`
 * makes a write that adds one row. The database is closed after `check`.
 */
async function onTable(check: (table: { database: BetterSqlite3.Database; group: GroupCommit; insert: (value: string) => () => number }) => Promise<void>) {
  const database = new BetterSqlite3(tempDatabasePath())
  try {
    database.exec('CREATE TABLE t (v TEXT)')
    const group = new GroupCommit(database)
    const insert = (value: string) => () => database.prepare('INSERT INTO t (v) VALUES (?)').run(value).changes
    await concurrently(() => group.submit(insert('warm')))
    database.exec("DELETE FROM t WHERE v = 'warm'")
    await check({ database, group, insert })
  } finally {
    database.close()
  }
}

describe('group commit', () => {
  it("commits a lone writer's write at once, in a transaction of its own", async () => {
    const { stores, commits, close } = countedStores()
    try {
      await stores.sessions.createSession({ id: 's' })
      let late = 0
      for (let index = 1; index <= 50; index++) {
        const before = commits()
        const appended = stores.sessions.append('s', [message(`${index}`)])
        // Committed before the caller even awaits (no loop turn waited for), except the probe every 32 writes.
        if (commits() === before) late++
        expect((await appended)[0]!.seq).toBe(index)
        expect(commits() - before).toBe(1)
      }
      expect(late).toBe(1)
    } finally {
      close()
    }
  })

  it('commits the writes of concurrent runs submitted in one loop turn in one transaction, each durable when it resolves', async () => {
    const { path, stores, commits, close } = countedStores()
    try {
      await Promise.all(['a', 'b', 'c'].map((id) => stores.sessions.createSession({ id })))
      await concurrently((index) => stores.sessions.createSession({ id: `warm ${index}` }))
      const before = commits()
      const batch = stores.sessions.batch!
      const writes = (id: string): StoreWrite[] => [
        { type: 'session.append', sessionId: id, entries: [message(`${id} 1`), message(`${id} 2`)] },
        { type: 'snapshot.save', snapshot: { runId: `run ${id}`, sessionId: id, version: 1, state: { id }, createdAt: 1 } },
      ]
      const reader = new BetterSqlite3(path, { readonly: true })
      try {
        const visible = (id: string) => reader.prepare('SELECT count(*) AS n FROM session_entries WHERE session_id = ?').get(id) as { n: number }
        const results = await Promise.all(
          ['a', 'b', 'c'].map(async (id) => {
            const result = await batch.write(writes(id))
            // Resolved: committed, so another connection reads it.
            expect(visible(id).n).toBe(2)
            return result
          }),
        )
        expect(commits() - before).toBe(1)
        expect(results.map((result) => (result[0] as Array<{ seq: number }>).map((entry) => entry.seq))).toEqual([
          [1, 2],
          [1, 2],
          [1, 2],
        ])
      } finally {
        reader.close()
      }
    } finally {
      close()
    }
  })

  it('rolls back a failing write alone: the others of its group are committed', async () => {
    const stores = openStores({ path: tempDatabasePath() })
    await stores.sessions.createSession({ id: 'taken' })
    await concurrently((index) => stores.sessions.createSession({ id: `warm ${index}` }))
    const outcomes = await Promise.allSettled([
      stores.sessions.createSession({ id: 'fresh' }),
      stores.sessions.createSession({ id: 'taken' }),
      stores.sessions.append('taken', [message('kept')]),
      stores.sessions.append('missing', [message('refused')]),
      stores.runs.createRun({ id: 'r', sessionId: 'fresh', request: {} }),
    ])
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateError)
    expect((outcomes[3] as PromiseRejectedResult).reason.message).toMatch(/Session "missing" does not exist/)
    expect((await stores.sessions.getSession('fresh'))?.lastSeq).toBe(0)
    expect((await stores.sessions.getSession('taken'))?.lastSeq).toBe(1)
    expect(await stores.sessions.getSession('missing')).toBeUndefined()
    expect((await stores.runs.getRun('r'))?.sessionId).toBe('fresh')
  })

  it('keeps nothing of a write that failed after writing rows; the others of its group commit, each once', async () => {
    await onTable(async ({ database, group, insert }) => {
      let failingRuns = 0
      const outcomes = await Promise.allSettled([
        group.submit(insert('first')),
        group.submit(() => {
          failingRuns++
          insert('half-written')()
          throw new Error('refused after a row')
        }),
        group.submit(insert('third')),
      ])
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused after a row')
      expect(database.prepare('SELECT v FROM t ORDER BY rowid').pluck().all()).toEqual(['first', 'third'])
      // Once in the group, once alone: the group was rolled back whole, then each write committed on its own.
      expect(failingRuns).toBe(2)
      expect(database.inTransaction).toBe(false)
    })
  })

  it('runs every write again on its own when the group transaction is lost', async () => {
    await onTable(async ({ database, group, insert }) => {
      const outcomes = await Promise.allSettled([
        group.submit(insert('first')),
        // Ends the whole transaction, as an I/O error would: the group's earlier write is gone with it.
        group.submit(() => {
          database.exec('ROLLBACK')
          throw new Error('lost the transaction')
        }),
        group.submit(insert('third')),
      ])
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      expect(database.prepare('SELECT v FROM t ORDER BY rowid').pluck().all()).toEqual(['first', 'third'])
      expect(database.inTransaction).toBe(false)
    })
  })

  it('commits the pending writes before a synchronous write and before close()', async () => {
    const path = tempDatabasePath()
    const stores = sqliteStores({ path })
    await stores.sessions.createSession({ id: 's' })
    await concurrently((index) => stores.sessions.createSession({ id: `warm ${index}` }))
    const appended = stores.sessions.append('s', [message('pending')])
    // deleteSession writes at once: the append submitted before it lands first, then the delete removes both.
    await stores.sessions.deleteSession('s')
    await expect(appended).resolves.toHaveLength(1)
    expect(await stores.sessions.getSession('s')).toBeUndefined()
    await stores.sessions.createSession({ id: 't' })
    const last = stores.sessions.append('t', [message('at close')])
    stores.close()
    await expect(last).resolves.toHaveLength(1)
    const reopened = openStores({ path })
    expect((await reopened.sessions.getSession('t'))?.lastSeq).toBe(1)
  })
})

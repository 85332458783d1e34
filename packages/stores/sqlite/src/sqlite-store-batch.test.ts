// SqliteStoreBatch beyond the conformance suite: wiring, one transaction wrapper per store, error mapping.
import BetterSqlite3 from 'better-sqlite3'
import { Extensions, StoreError, type AgentEvent, type JsonObject, type StoreWrite } from '@spindle/core'
import { findStoreBatch } from '@spindle/core/plugin-kit'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import * as entry from './index.js'

const message = (text: string) => ({ kind: 'message' as const, message: { role: 'user' as const, content: text } })
const event = (seq: number): AgentEvent => ({ type: 'text.delta', step: 1, delta: `d${seq}`, runId: 'r', sessionId: 's', seq, timestamp: seq })

async function seeded(options: Parameters<typeof openStores>[0]) {
  const stores = openStores(options)
  await stores.sessions.createSession({ id: 's' })
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: {} })
  return stores
}

describe('SqliteStoreBatch', () => {
  it('is one instance shared by the four stores, exported, and found through Extensions', () => {
    expect(entry).toHaveProperty('SqliteStoreBatch')
    const stores = openStores({ path: ':memory:' })
    const batch = stores.sessions.batch
    expect(batch).toBeInstanceOf(entry.SqliteStoreBatch)
    expect([stores.runs.batch, stores.executions.batch, stores.snapshots.batch]).toEqual([batch, batch, batch])
    const extensions = new Extensions().use(stores)
    expect(findStoreBatch(extensions.stores as entry.SqliteStores)).toBe(batch)
    expect(openStores({ path: ':memory:' }).sessions.batch).not.toBe(batch)
  })

  it('creates no transaction wrapper per write: each store makes its own once', async () => {
    const database = new BetterSqlite3(tempDatabasePath())
    const transaction = database.transaction.bind(database)
    let created = 0
    database.transaction = ((body: Parameters<typeof transaction>[0]) => {
      created++
      return transaction(body)
    }) as typeof database.transaction
    const stores = entry.sqliteStores({ database, configure: true })
    const afterOpen = created
    try {
      await stores.sessions.createSession({ id: 's' })
      await stores.runs.createRun({ id: 'r', sessionId: 's', request: {} })
      const wrappersBefore = created
      for (let step = 1; step <= 5; step++) {
        await stores.sessions.append('s', [message(`${step}`)])
        await stores.executions.start({ key: `r:${step}:c`, runId: 'r', step, callId: 'c', toolName: 't', args: {} })
        await stores.executions.finish(`r:${step}:c`, { status: 'succeeded', result: step })
        await stores.runs.appendEvents('r', [event(step)])
        await stores.runs.updateRun('r', { step })
        await stores.snapshots.save({ runId: 'r', sessionId: 's', version: step, state: { step }, createdAt: step })
        await stores.sessions.batch!.write([
          { type: 'session.append', sessionId: 's', entries: [message(`batch ${step}`)] },
          { type: 'run.events', runId: 'r', events: [event(100 + step)] },
        ])
      }
      expect(created).toBe(wrappersBefore)
      expect(afterOpen).toBeGreaterThan(0)
      expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(10)
    } finally {
      stores.close()
      database.close()
    }
  })

  it('refuses a value it cannot store before writing anything, naming the write', async () => {
    const stores = await seeded({ path: ':memory:' })
    const circular: JsonObject = {}
    circular.self = circular
    const writes: StoreWrite[] = [
      { type: 'session.append', sessionId: 's', entries: [message('kept out')] },
      { type: 'snapshot.save', snapshot: { runId: 'r', sessionId: 's', version: 1, state: circular, createdAt: 1 } },
    ]
    const error = await stores.sessions.batch!.write(writes).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(/save snapshot 1 of run "r" \(write 2 of 2 in a batch; none of them was written\)/)
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(0)
    await expect(
      stores.sessions.batch!.write([{ type: 'session.append', sessionId: 's', entries: [{ ...message('x'), runId: 'bad \uD800' }] }]),
    ).rejects.toThrow(/lone UTF-16 surrogate/)
  })

  it('maps a value JSON cannot hold to a StoreError on the single methods too', async () => {
    const stores = await seeded({ path: ':memory:' })
    const circular: JsonObject = {}
    circular.self = circular
    const error = await stores.sessions
      .append('s', [{ kind: 'message', message: { role: 'user', content: [{ type: 'text', text: 'x', providerOptions: circular }] } } as never])
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(/Could not append to session "s"/)
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(0)
  })

  it('rejects with a retryable StoreError when another connection holds the write lock, and writes nothing', async () => {
    const path = tempDatabasePath()
    const stores = await seeded({ path, busyTimeoutMs: 0 })
    const holder = new BetterSqlite3(path)
    holder.exec('BEGIN IMMEDIATE')
    try {
      const error = await stores.sessions
        .batch!.write([{ type: 'session.append', sessionId: 's', entries: [message('blocked')] }])
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(StoreError)
      expect((error as StoreError).isRetryable).toBe(true)
      expect((error as Error).message).toMatch(/commit a batch of 1 writes/)
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    const [appended] = (await stores.sessions.batch!.write([{ type: 'session.append', sessionId: 's', entries: [message('after')] }])) as Array<
      Array<{ seq: number }>
    >
    expect(appended![0]!.seq).toBe(1)
  })

  it('rejects on a read-only connection with a StoreError naming the write', async () => {
    const path = tempDatabasePath()
    await seeded({ path })
    const readonly = openStores({ path, readonly: true })
    const error = await readonly.sessions
      .batch!.write([
        { type: 'run.update', runId: 'r', patch: { step: 1 } },
        { type: 'session.append', sessionId: 's', entries: [message('nope')] },
      ])
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(/update run "r" \(write 1 of 2 in a batch.*read-only/)
    expect((await readonly.runs.getRun('r'))?.step).toBe(0)
  })
})

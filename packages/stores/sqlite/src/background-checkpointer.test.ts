// Background WAL checkpoints (`checkpoint: 'background'`): the worker thread copies the WAL into the database file (seen through a copy of
// the file alone, without its WAL), the connection's own checkpoint becomes a fallback, and
// the worker neither keeps a process alive nor holds a closed database.
import { spawn } from 'node:child_process'
import { copyFileSync, rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'
import { backgroundCheckpointIntervalMs, fallbackAutocheckpointFrames } from './background-checkpointer.js'
import type { SqliteStores } from './sqlite-stores.js'

const writerPath = fileURLToPath(new URL('./__fixtures__/unclosed-writer.ts', import.meta.url))
const packageDirectory = fileURLToPath(new URL('..', import.meta.url))

/** Entries of session "s" in the database file itself, without the WAL (read from a copy of the file alone). */
function entriesInFile(path: string): number {
  const copy = `${path}.file-only`
  copyFileSync(path, copy)
  const file = new BetterSqlite3(copy, { readonly: true })
  try {
    const table = file.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'session_entries'").pluck().get() as number
    return table ? (file.prepare("SELECT count(*) FROM session_entries WHERE session_id = 's'").pluck().get() as number) : 0
  } finally {
    file.close()
    rmSync(copy, { force: true })
  }
}

async function appendMessages(stores: SqliteStores, count: number): Promise<void> {
  await stores.sessions.createSession({ id: 's' })
  for (let i = 0; i < count; i++) await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: `m${i}` } }])
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the checkpoint worker')
    await new Promise((resolve) => setTimeout(resolve, backgroundCheckpointIntervalMs / 2))
  }
}

describe('background checkpoints', () => {
  it('copy the WAL into the database file while the writing connection never checkpoints itself below the fallback', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path, checkpoint: 'background' })
    expect(stores.database.pragma('wal_autocheckpoint', { simple: true })).toBe(fallbackAutocheckpointFrames)
    await appendMessages(stores, 40)
    const status = stores.checkpointStatus!
    await waitFor(() => status.log > 0 && status.checkpointed === status.log)
    expect(status.checkpoints).toBeGreaterThan(0)
    expect(entriesInFile(path)).toBe(40)
    // Later writes are copied too (the WAL restarts from its beginning once it was copied whole).
    for (let i = 0; i < 10; i++) await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: `late ${i}` } }])
    await waitFor(() => entriesInFile(path) === 50)
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(50)
  })

  it('inline (the default): the same writes stay in the WAL until SQLite’s own checkpoint (every 1,000 frames)', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    expect(stores.checkpointStatus).toBeUndefined()
    expect(stores.database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    await appendMessages(stores, 40)
    await new Promise((resolve) => setTimeout(resolve, backgroundCheckpointIntervalMs * 4))
    expect(entriesInFile(path)).toBe(0)
  })

  it('stays inline for :memory: and read-only connections even when asked', () => {
    expect(openStores({ path: ':memory:', checkpoint: 'background' }).checkpointStatus).toBeUndefined()
    const path = tempDatabasePath()
    openStores({ path }).close()
    expect(openStores({ path, readonly: true, checkpoint: 'background' }).checkpointStatus).toBeUndefined()
    const database = new BetterSqlite3(path)
    try {
      expect(openStores({ database }).checkpointStatus).toBeUndefined()
      expect(openStores({ database, checkpoint: 'background' }).checkpointStatus).toBeDefined()
    } finally {
      database.close()
    }
  })

  it('stops with close(): nothing more is copied, and a reopened database checkpoints again', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path, checkpoint: 'background' })
    await appendMessages(stores, 5)
    const status = stores.checkpointStatus!
    await waitFor(() => status.log > 0 && status.checkpointed === status.log)
    stores.close()
    expect(stores.checkpointStatus).toBeUndefined()
    const reopened = openStores({ path, checkpoint: 'background' })
    await reopened.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'after' } }])
    await waitFor(() => entriesInFile(path) === 6)
  })

  it('never keeps a process alive: a writer that never closes its stores exits on its own', async () => {
    const path = tempDatabasePath()
    const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', writerPath, path, '20'], {
      cwd: packageDirectory,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (data: Buffer) => (output += data.toString()))
    child.stderr.on('data', (data: Buffer) => (output += data.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)))
    expect(code, output).toBe(0)
    expect(output).toContain('background true')
    // Its writes are durable: the WAL it left is recovered on the next open.
    const stores = openStores({ path })
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(20)
  }, 30_000)
})

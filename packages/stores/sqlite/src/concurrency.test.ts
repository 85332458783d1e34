// Several connections and processes on one file: gap-free appends, isolation between files, crash safety.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openStores, tempDatabasePath } from './__fixtures__/temp-database.js'

const workerPath = fileURLToPath(new URL('./__fixtures__/append-worker.ts', import.meta.url))
const packageDirectory = fileURLToPath(new URL('..', import.meta.url))

function startWorker(path: string, sessionId: string, label: string, count: number) {
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', workerPath, path, sessionId, label, String(count)], {
    cwd: packageDirectory,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()))
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return { child, exited, committed: () => stdout.split('\n').filter((line) => line.startsWith('seq ')).length }
}

describe('concurrency and durability on one file', () => {
  it('two sqliteStores instances append to one session, interleaved, with one gap-free sequence', async () => {
    const path = tempDatabasePath()
    const a = openStores({ path })
    const b = openStores({ path })
    await a.sessions.createSession({ id: 's' })
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).sessions.append('s', [{ kind: 'message', message: { role: 'user', content: `${i}` } }])),
    )
    const seqs = results
      .flat()
      .map((entry) => entry.seq)
      .sort((x, y) => x - y)
    expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    expect((await b.sessions.getSession('s'))?.lastSeq).toBe(60)
    expect((await a.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual(seqs)
  })

  it('two processes append to one session at the same time: every entry once, seq gap-free', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    await stores.sessions.createSession({ id: 's' })
    const count = 150
    const workers = [startWorker(path, 's', 'A', count), startWorker(path, 's', 'B', count)]
    const outcomes = await Promise.all(workers.map((worker) => worker.exited))
    for (const outcome of outcomes) expect(outcome, outcome.stderr).toMatchObject({ code: 0 })
    const entries = await stores.sessions.listEntries('s')
    expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 2 * count }, (_, i) => i + 1))
    const contents = entries.map((entry) => (entry.kind === 'message' ? entry.message.content : ''))
    for (const label of ['A', 'B']) {
      // Each writer's entries are all there, once, in the order it wrote them.
      expect(contents.filter((content) => String(content).startsWith(`${label}-`))).toEqual(Array.from({ length: count }, (_, i) => `${label}-${i}`))
    }
    expect((await stores.sessions.getSession('s'))?.lastSeq).toBe(2 * count)
  }, 60_000)

  it('keeps every committed append when the writing process is killed with SIGKILL', async () => {
    const path = tempDatabasePath()
    const stores = openStores({ path })
    await stores.sessions.createSession({ id: 's' })
    stores.close()
    const worker = startWorker(path, 's', 'K', 100_000)
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (worker.committed() >= 40) {
          clearInterval(timer)
          worker.child.kill('SIGKILL')
          resolve()
        }
      }, 5)
      worker.exited.then((outcome) => {
        clearInterval(timer)
        if (outcome.signal !== 'SIGKILL') reject(new Error(`worker ended before it was killed: ${outcome.stderr}`))
      })
    })
    const outcome = await worker.exited
    expect(outcome.signal).toBe('SIGKILL')
    const acknowledged = worker.committed()
    const reopened = openStores({ path })
    const session = await reopened.sessions.getSession('s')
    const entries = await reopened.sessions.listEntries('s')
    // Everything the child saw committed survived; nothing half-written is visible; the log is gap-free.
    expect(session!.lastSeq).toBeGreaterThanOrEqual(acknowledged)
    expect(entries.map((entry) => entry.seq)).toEqual(Array.from({ length: session!.lastSeq }, (_, i) => i + 1))
    expect(entries.map((entry) => (entry.kind === 'message' ? entry.message.content : ''))).toEqual(
      Array.from({ length: session!.lastSeq }, (_, i) => `K-${i}`),
    )
    // And the file is writable again afterwards.
    expect((await reopened.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'after' } }]))[0]?.seq).toBe(session!.lastSeq + 1)
  }, 60_000)

  it('data is visible after close and reopen, in every store', async () => {
    const path = tempDatabasePath()
    const first = openStores({ path })
    await first.sessions.createSession({ id: 's' })
    await first.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'hi' } }])
    await first.runs.createRun({ id: 'r', sessionId: 's', request: { input: 'hi' }, idempotencyKey: 'k' })
    await first.runs.appendEvents('r', [{ type: 'step.started', step: 1, runId: 'r', sessionId: 's', seq: 1, timestamp: 1 }])
    await first.executions.start({ key: 'r:1:c', runId: 'r', step: 1, callId: 'c', toolName: 't', args: { a: 1 } })
    await first.snapshots.save({ runId: 'r', sessionId: 's', version: 1, state: { step: 1, cursor: 1 }, createdAt: 1 })
    await first.embeddings.upsert([{ id: 'e', vector: [1, 0, 0], content: 'hello' }])
    const artifact = await first.artifacts.put('bytes', { name: 'a.txt' })
    first.close()
    const second = openStores({ path })
    expect((await second.sessions.getSession('s'))?.lastSeq).toBe(1)
    expect((await second.runs.findRunByIdempotencyKey('s', 'k'))?.id).toBe('r')
    expect(await second.runs.listEvents('r')).toHaveLength(1)
    expect((await second.executions.get('r:1:c'))?.status).toBe('started')
    expect((await second.snapshots.latest('r'))?.state).toEqual({ step: 1, cursor: 1 })
    expect((await second.embeddings.get('e'))?.content).toBe('hello')
    expect((await second.artifacts.head(artifact.id))?.name).toBe('a.txt')
  })

  it('two different files never see each other’s data', async () => {
    const a = openStores({ path: tempDatabasePath('a.db') })
    const b = openStores({ path: tempDatabasePath('b.db') })
    await a.sessions.createSession({ id: 'same-id', title: 'in a' })
    await a.runs.createRun({ id: 'run', sessionId: 'same-id', request: {} })
    await a.embeddings.upsert([{ id: 'e', vector: [1, 0] }])
    await a.artifacts.put('only in a')
    expect(await b.sessions.getSession('same-id')).toBeUndefined()
    expect(await b.sessions.listSessions()).toEqual([])
    expect(await b.runs.getRun('run')).toBeUndefined()
    expect(await b.embeddings.query({ vector: [1, 0], topK: 5 })).toEqual([])
    expect(await b.artifacts.list()).toEqual([])
    await b.sessions.createSession({ id: 'same-id', title: 'in b' })
    expect((await a.sessions.getSession('same-id'))?.title).toBe('in a')
  })
})

// The orphan watch on a real SQLite file: a run held by a process that stopped renewing its lease turns
// `interrupted` once the lease expires; a lease still renewed, and this process's own runs, are left alone.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentRuntime, MemoryRunStore, type RunRecord } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'
import { afterAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'
import { watchOrphanedRuns } from './orphaned-runs.js'

let playground: TestPlayground | undefined
afterAll(() => playground?.stop())

describe('orphaned runs', () => {
  it('a restart marks a run left by a dead process interrupted when its lease expires; live and own runs stay running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spindle-playground-orphans-'))
    // What a process that died left behind: runs `running` under leases that have not expired yet.
    const previous = sqliteStores({ path: join(dataDir, 'playground.db') })
    const session = await previous.sessions.createSession({ metadata: {} })
    const expiresAt = Date.now() + 4000
    const record = (id: string, owner: string, until: number) =>
      previous.runs.createRun({
        id,
        sessionId: session.id,
        status: 'running',
        request: { input: 'hello' },
        metadata: {},
        startedAt: Date.now(),
        lease: { owner, expiresAt: until },
      })
    await record('run_gone', 'process-gone', expiresAt)
    await record('run_alive', 'process-alive', expiresAt)
    previous.close()

    // The regular check runs every leaseMs (8 s here): the expiry itself must wake the watch.
    playground = await startTestPlayground({ dataDir, leaseMs: 8000 })
    const { runs } = playground.spindle.rawStores
    expect((await runs.getRun('run_gone'))?.status).toBe('running')
    await runs.createRun({
      id: 'run_ours',
      sessionId: session.id,
      status: 'running',
      request: { input: 'hello' },
      metadata: {},
      lease: { owner: playground.spindle.runtime.ownerId, expiresAt: Date.now() - 1 },
    })
    const renew = setInterval(() => void runs.updateRun('run_alive', { lease: { owner: 'process-alive', expiresAt: Date.now() + 600 } }), 150)
    try {
      const gone = await playground.waitForRun('run_gone', (detail) => detail.run.status === 'interrupted', 8000)
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
      expect(Date.now()).toBeLessThan(expiresAt + 2000)
      expect(gone.run.lease).toBeUndefined()
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect((await runs.getRun('run_alive'))?.status).toBe('running')
      // This process's own runs are its runtime's business (one may be starting right now).
      expect((await runs.getRun('run_ours'))?.status).toBe('running')
    } finally {
      clearInterval(renew)
    }
    // The watch kept looking at the renewed lease: once nobody renews it, that run is an orphan too.
    await playground.waitForRun('run_alive', (detail) => detail.run.status === 'interrupted', 3000)
  }, 20_000)

  it('a run another process resumes between the check and the mark keeps running (the mark is a compare-and-set)', async () => {
    // Right after the watch has read the run again, another process claims it (a resume that just started).
    const reads: unknown[] = []
    class RacingRunStore extends MemoryRunStore {
      override async getRun(id: string): Promise<RunRecord | undefined> {
        const read = await super.getRun(id)
        reads.push(read)
        await this.updateRun(id, { lease: { owner: 'process-resuming', expiresAt: Date.now() + 60_000 } })
        return read
      }
    }
    const runs = new RacingRunStore()
    await runs.createRun({
      id: 'run_taken',
      sessionId: 'ses_x',
      status: 'running',
      request: { input: 'hi' },
      metadata: {},
      lease: { owner: 'process-gone', expiresAt: Date.now() - 1 },
    })
    const watch = watchOrphanedRuns({ runs, ownerId: 'process-here', leaseMs: 60_000, onError: (error) => reads.push(error) })
    await expect.poll(() => reads.length).toBeGreaterThan(0)
    await watch.stop()
    expect(reads[0]).toMatchObject({ status: 'running', lease: { owner: 'process-gone' } })
    expect(await runs.getRun('run_taken')).toMatchObject({ status: 'running', lease: { owner: 'process-resuming' } })
  })

  it("marks a run interrupted at once when its lease's owner is a dead process of this host (core's leaseIsFree), not at the lease's expiry", async () => {
    // The default owner id of a process that ran and exited (host, its pid, this boot): provably dead.
    const own = new AgentRuntime().ownerId
    const deadPid = Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim())
    const deadOwner = own.replace(`/${process.pid}/`, `/${deadPid}/`)
    const runs = new MemoryRunStore()
    const lease = (owner: string) => ({ owner, expiresAt: Date.now() + 600_000 })
    await runs.createRun({ id: 'run_dead', sessionId: 'ses_x', status: 'running', request: { input: 'hi' }, metadata: {}, lease: lease(deadOwner) })
    await runs.createRun({ id: 'run_live', sessionId: 'ses_y', status: 'running', request: { input: 'hi' }, metadata: {}, lease: lease('process-alive') })
    const watch = watchOrphanedRuns({ runs, ownerId: own, leaseMs: 600_000 })
    await expect.poll(async () => (await runs.getRun('run_dead'))?.status).toBe('interrupted')
    await watch.stop()
    expect((await runs.getRun('run_live'))?.status).toBe('running')
  })
})

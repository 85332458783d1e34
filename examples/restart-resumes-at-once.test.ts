// A process killed with kill -9 and started again on the same SQLite file takes its runs back at once, with the
// default owner id: not after the dead process's lease (30 s here). A live process's runs are never taken.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { AgentRuntime, Extensions, mockModel } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'

const directory = mkdtempSync(join(tmpdir(), 'spindle-restart-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

/** Starts the lease holder on `path`; resolves once it holds its runs. */
function holdLeases(path: string) {
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', join(import.meta.dirname, 'test-support/lease-holder-child.ts')], {
    cwd: import.meta.dirname,
    env: { ...process.env, LEASE_DB: path },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
  const holding = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString()
      const owner = /HOLDING (\S+)/.exec(output)?.[1]
      if (owner) resolve(owner)
    })
    child.stderr.on('data', (data: Buffer) => (output += data.toString()))
    void exited.then(() => reject(new Error(`the lease holder exited early:\n${output}`)))
  })
  return { child, holding, exited }
}

const agent = { name: 'writer', model: mockModel((request) => ({ text: `resumed: ${JSON.stringify(request.messages[0]?.content)}` })) }

it(
  "after kill -9, a new runtime with the default owner id resumes the dead process's runs at once (recover() and run() with the same idempotency key)",
  { timeout: 30_000 },
  async () => {
    const path = join(directory, 'killed.db')
    const holder = holdLeases(path)
    const deadOwner = await holder.holding
    holder.child.kill('SIGKILL')
    expect(await holder.exited).toBe('SIGKILL')

    const extensions = new Extensions().use(sqliteStores({ path }))
    const runtime = new AgentRuntime(extensions, { leaseMs: 30_000 })
    try {
      // The dead process's leases are 30 s long and still unexpired.
      const held = await runtime.runs.listRuns({ status: 'running' })
      expect(held).toHaveLength(2)
      for (const run of held) expect(run.lease).toMatchObject({ owner: deadOwner, expiresAt: expect.any(Number) })
      expect(Math.min(...held.map((run) => run.lease!.expiresAt)) - Date.now()).toBeGreaterThan(20_000)
      expect(runtime.ownerId).not.toBe(deadOwner)

      const started = Date.now()
      const keyed = await runtime.run({ agent, input: 'key me', sessionId: 'keyed', idempotencyKey: 'job-1' })
      expect(keyed).toMatchObject({ finishReason: 'stop', text: 'resumed: "key me"' })
      const { resumed, busy, failed } = await (await runtime.recover({ agents: [agent] })).done
      expect(Date.now() - started).toBeLessThan(5_000)
      expect({ busy, failed }).toEqual({ busy: [], failed: [] })
      expect(resumed.map((output) => output.text)).toEqual(['resumed: "recover me"'])
      for (const run of await runtime.runs.listRuns()) expect(run.status).toBe('completed')
    } finally {
      await extensions.dispose()
    }
  },
)

it('the runs of a live process on the same file are not taken before their lease expires', { timeout: 30_000 }, async () => {
  const path = join(directory, 'alive.db')
  const holder = holdLeases(path)
  const liveOwner = await holder.holding
  const extensions = new Extensions().use(sqliteStores({ path }))
  const runtime = new AgentRuntime(extensions, { leaseMs: 30_000 })
  try {
    const result = await runtime.recover({ agents: [agent] })
    expect(result.pending).toEqual([])
    expect((await result.done).resumed).toEqual([])
    const held = await runtime.runs.listRuns({ status: 'running' })
    expect(held.map((run) => run.lease?.owner)).toEqual([liveOwner, liveOwner])
  } finally {
    holder.child.kill('SIGKILL')
    await holder.exited
    await extensions.dispose()
  }
})

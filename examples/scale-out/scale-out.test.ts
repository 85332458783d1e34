// The scale-out example end to end: two worker processes, one enqueuer process, one PostgreSQL schema.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { postgresScaleOut } from '@spindle/store-postgres'
import { afterAll, describe, expect, it } from 'vitest'

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `spindle_example_${randomBytes(5).toString('hex')}`
const admin = postgresScaleOut({ connectionString: databaseUrl, schema, poolOptions: { connectionTimeoutMillis: 3000, max: 2 } })
const unreachable = await admin.pool.query('SELECT 1').then(
  () => undefined,
  (error: Error) => error.message,
)
const inCi = process.env.CI === 'true' || process.env.CI === '1'
const skipReason = unreachable !== undefined && !inCi ? `no PostgreSQL at ${databaseUrl} (${unreachable})` : undefined

afterAll(async () => {
  if (skipReason === undefined) {
    await admin.pool.query(`DROP SCHEMA IF EXISTS "${schema}_queue" CASCADE`)
    await admin.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  }
  await admin.pool.end()
})

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function start(script: string, args: string[], env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', join(import.meta.dirname, script), ...args], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, DATABASE_URL: databaseUrl, SCALE_OUT_SCHEMA: schema, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (data: Buffer) => (output += data.toString()))
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()))
  return { child, output: () => output, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) }
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(skipReason !== undefined)(`scale-out example${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('one process enqueues, two worker processes share the runs, every run is answered once', { timeout: 90_000 }, async () => {
    const workers = [start('worker.ts', [], { WORKER_NAME: 'worker-a' }), start('worker.ts', [], { WORKER_NAME: 'worker-b' })]
    try {
      for (const worker of workers) await until(() => worker.output().includes('ready'), `a worker to start:\n${worker.output()}`)
      const enqueuer = start('enqueue.ts', ['12', '--wait'])
      expect(await enqueuer.exited, enqueuer.output()).toBe(0)
      const output = enqueuer.output()
      expect(output).toMatch(/enqueued 12 runs in \d+ ms/)
      for (let order = 1000; order < 1012; order++) expect(output).toContain(`completed: Order ${order} has shipped with PostNL.`)
      expect(output).toMatch(/all 12 runs finished/)

      for (const worker of workers) worker.child.kill('SIGTERM')
      expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0])
      // Both workers executed runs, and no run's tool ran twice across them.
      const lookups = workers.map((worker) => worker.output().match(/lookup_order\(\d+\)/g) ?? [])
      expect(lookups[0]!.length).toBeGreaterThan(0)
      expect(lookups[1]!.length).toBeGreaterThan(0)
      expect(lookups.flat().sort()).toEqual(Array.from({ length: 12 }, (_, i) => `lookup_order(${1000 + i})`).sort())
      expect(workers[0]!.output()).toContain('worker-a  stopped')

      // Enqueuing the same orders again is a no-op: the idempotency keys return the existing runs.
      const again = start('enqueue.ts', ['12'])
      expect(await again.exited, again.output()).toBe(0)
      const { rows } = await admin.pool.query<{ count: string }>(`SELECT count(*) AS count FROM "${schema}".runs`)
      expect(Number(rows[0]!.count)).toBe(12)
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL')
    }
  })
})

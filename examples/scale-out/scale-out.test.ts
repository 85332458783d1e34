// The scale-out example end to end: two worker processes, one enqueuer process, one PostgreSQL schema (and pg-boss's
// `<schema>_queue`); a worker killed mid-run is replaced within failoverMs; a worker started through pnpm dies with it.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { postgresScaleOut } from '@spindle/store-postgres'
import { afterAll, describe, expect, it } from 'vitest'

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `spindle_example_${randomBytes(5).toString('hex')}`
const failoverSchema = `${schema}_failover`
const admin = postgresScaleOut({ connectionString: databaseUrl, schema, poolOptions: { connectionTimeoutMillis: 3000, max: 2 } })
const unreachable = await admin.pool.query('SELECT 1').then(
  () => undefined,
  (error: Error) => error.message,
)
const inCi = process.env.CI === 'true' || process.env.CI === '1'
const skipReason = unreachable !== undefined && !inCi ? `no PostgreSQL at ${databaseUrl} (${unreachable})` : undefined

afterAll(async () => {
  if (skipReason === undefined) {
    for (const name of [schema, failoverSchema]) {
      await admin.pool.query(`DROP SCHEMA IF EXISTS "${name}_queue" CASCADE`)
      await admin.pool.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
    }
  }
  await admin.pool.end()
})

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

const root = join(import.meta.dirname, '..', '..')

/** Runs a script of the example as the README says: `node --conditions=@spindle/source --import tsx <script>`, from the repository's root. */
function start(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  command = [process.execPath, '--conditions=@spindle/source', '--import', 'tsx'],
): Started {
  const child = spawn(command[0]!, [...command.slice(1), join('examples', 'scale-out', script), ...args], {
    cwd: root,
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
      expect(output).toMatch(/enqueued 12 new runs in \d+ ms \(0 of the 12 were already enqueued/)
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
      expect(again.output()).toMatch(/enqueued 0 new runs in \d+ ms \(12 of the 12 were already enqueued: same idempotency key\)/)
      const { rows } = await admin.pool.query<{ count: string }>(`SELECT count(*) AS count FROM "${schema}".runs`)
      expect(Number(rows[0]!.count)).toBe(12)
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL')
    }
  })

  it('a worker killed with kill -9 mid-run: another resumes its runs within failoverMs (8 s in the example)', { timeout: 90_000 }, async () => {
    const env = { SCALE_OUT_SCHEMA: failoverSchema }
    // Worker A answers slowly, so that its runs are mid-run (tool called, answer not written) when it is killed.
    const a = start('worker.ts', [], { ...env, WORKER_NAME: 'worker-a', ANSWER_DELAY_MS: '20000' })
    let b: Started | undefined
    try {
      await until(() => a.output().includes('ready'), `worker A to start:\n${a.output()}`)
      const enqueuer = start('enqueue.ts', ['2'], env)
      expect(await enqueuer.exited, enqueuer.output()).toBe(0)
      // Both runs are in one customer session: A executes the first (its answer takes 20 s), the second waits for it.
      await until(() => /lookup_order/.test(a.output()), `worker A to call the tool:\n${a.output()}`)
      const held = [...a.output().matchAll(/(run_\S+): lookup_order/g)].map((match) => match[1]!)
      expect(held).toHaveLength(1)
      b = start('worker.ts', [], { ...env, WORKER_NAME: 'worker-b' })
      await until(() => b!.output().includes('ready'), `worker B to start:\n${b!.output()}`)
      a.child.kill('SIGKILL')
      const killedAt = Date.now()
      await a.exited
      const ended = async (runId: string) => {
        const { rows } = await admin.pool.query<{ status: string }>(`SELECT status FROM "${failoverSchema}".runs WHERE id = $1`, [runId])
        return rows[0]?.status === 'completed'
      }
      const { rows: all } = await admin.pool.query<{ id: string }>(`SELECT id FROM "${failoverSchema}".runs`)
      expect(all).toHaveLength(2)
      for (const { id } of all) {
        const deadline = killedAt + 45_000
        while (!(await ended(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
        expect(await ended(id), b.output()).toBe(true)
      }
      const { rows } = await admin.pool.query<{ run_id: string; event: { type: string; timestamp: number } }>(
        `SELECT run_id, event FROM "${failoverSchema}".run_events WHERE run_id = ANY($1) AND event->>'type' = 'run.resumed'`,
        [held],
      )
      expect(rows.map((row) => row.run_id).sort(), b.output()).toEqual([...held].sort())
      // Picked up within failoverMs of the kill, and finished by worker B without running the tool again.
      for (const row of rows) expect(row.event.timestamp - killedAt).toBeLessThanOrEqual(8_000)
      // The held run's tool call was journaled before the kill: B does not run it again (it runs the second run's).
      expect(b.output()).not.toContain(`${held[0]}: lookup_order`)
    } finally {
      a.child.kill('SIGKILL')
      b?.child.kill('SIGKILL')
    }
  })

  it('a worker started through `pnpm exec tsx` dies when the pnpm process is killed with kill -9', { timeout: 60_000 }, async () => {
    const pnpm = start('worker.ts', [], { SCALE_OUT_SCHEMA: failoverSchema, WORKER_NAME: 'worker-c' }, ['pnpm', 'exec', 'tsx', '--conditions=@spindle/source'])
    try {
      await until(() => /ready \(pid \d+\)/.test(pnpm.output()), `the worker to start:\n${pnpm.output()}`)
      const pid = Number(/ready \(pid (\d+)\)/.exec(pnpm.output())![1])
      expect(pid).not.toBe(pnpm.child.pid)
      pnpm.child.kill('SIGKILL')
      await pnpm.exited
      const alive = () => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      }
      await until(() => !alive(), `worker ${pid} to die with pnpm`, 5_000)
    } finally {
      pnpm.child.kill('SIGKILL')
    }
  })
})

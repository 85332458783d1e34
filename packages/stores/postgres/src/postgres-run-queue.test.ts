// PostgresRunQueue on a real PostgreSQL: one job per run, heartbeats, expiry of a dead worker's job, retries, graceful shutdown.
import { AgentRuntime, Extensions, mockModel, type RunJob, SessionBusyError } from '@spindle/core'
import pg from 'pg'
import PgBoss from 'pg-boss'
import { afterEach, expect, it } from 'vitest'
import { PostgresRunQueue, runJobId } from './postgres-run-queue.js'
import { postgresScaleOut } from './postgres-scale-out.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

function freshSchema(): string {
  const schema = randomSchemaName()
  cleanups.push(async () => {
    await dropSchema(`${schema}_queue`)
    await dropSchema(schema)
  })
  return schema
}

function queue(schema: string, options: ConstructorParameters<typeof PostgresRunQueue>[0] = {}): PostgresRunQueue {
  const created = new PostgresRunQueue({ connectionString: databaseUrl, schema, maintenanceIntervalSeconds: 1, pollIntervalMs: 100, ...options })
  cleanups.push(() => created.close())
  return created
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describePostgres('PostgresRunQueue', () => {
  it('derives one job id per run: a second enqueue of a run is a no-op', async () => {
    expect(runJobId('run_1')).toBe(runJobId('run_1'))
    expect(runJobId('run_1')).not.toBe(runJobId('run_2'))
    expect(runJobId('run_1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const q = queue(freshSchema())
    await q.enqueue({ runId: 'run_1', sessionId: 's' })
    await q.enqueue({ runId: 'run_1', sessionId: 's' })
    await q.enqueue({ runId: 'run_2', sessionId: 's' })
    expect(await q.counts()).toEqual({ created: 2 })
  })

  it('several processes starting on a fresh schema at once all get the queue', async () => {
    const schema = freshSchema()
    const queues = Array.from({ length: 4 }, () => queue(schema))
    await Promise.all(queues.map((q) => q.ready()))
    await queues[3]!.enqueue({ runId: 'run_1', sessionId: 's' })
    expect(await queues[0]!.counts()).toEqual({ created: 1 })
  })

  it('two workers share the jobs, each handled once; a heartbeat keeps a job longer than its expiry', async () => {
    const schema = freshSchema()
    const [a, b] = [queue(schema, { expireInSeconds: 1, heartbeatSeconds: 0.25 }), queue(schema, { expireInSeconds: 1, heartbeatSeconds: 0.25 })]
    for (let i = 0; i < 6; i++) await a.enqueue({ runId: `run_${i}`, sessionId: 's' })
    const handled: Array<{ worker: string; job: RunJob }> = []
    const controller = new AbortController()
    const handler = (worker: string) => async (job: RunJob) => {
      handled.push({ worker, job })
      // Longer than expireInSeconds + a maintenance pass: only the heartbeat keeps the job from being retried.
      if (job.runId === 'run_0') await sleep(2600)
      else await sleep(50)
    }
    const working = [a.work(handler('a'), { concurrency: 2, signal: controller.signal }), b.work(handler('b'), { concurrency: 2, signal: controller.signal })]
    await expect.poll(() => a.counts(), { timeout: 10_000, interval: 200 }).toEqual({ completed: 6 })
    controller.abort()
    await Promise.all(working)
    expect(handled.map((entry) => entry.job.runId).sort()).toEqual(['run_0', 'run_1', 'run_2', 'run_3', 'run_4', 'run_5'])
    expect(new Set(handled.map((entry) => entry.worker)).size).toBe(2)
  })

  it("a dead worker's claimed job expires and another worker takes it", async () => {
    const schema = freshSchema()
    const live = queue(schema, { expireInSeconds: 1 })
    await live.enqueue({ runId: 'run_dead', sessionId: 's' })
    // A worker that claims the job and dies: a bare pg-boss fetch, no heartbeat, never completed.
    const pool = new pg.Pool({ connectionString: databaseUrl })
    cleanups.push(() => pool.end())
    const dead = new PgBoss({
      db: { executeSql: (text: string, values: unknown[]) => pool.query(text, values) },
      schema: live.queueSchema,
      supervise: false,
      schedule: false,
    })
    dead.on('error', () => {})
    await dead.start()
    const claimed = await dead.fetch('spindle-runs')
    expect(claimed).toHaveLength(1)
    await dead.stop({ graceful: false, close: false })
    const started = Date.now()
    const handled: string[] = []
    const controller = new AbortController()
    const working = live.work(
      async (job) => {
        handled.push(job.runId)
        controller.abort()
      },
      { concurrency: 1, signal: controller.signal },
    )
    await working
    expect(handled).toEqual(['run_dead'])
    // Expiry (1 s) + a maintenance pass (1 s) + the first retry's backoff (1–2 s).
    expect(Date.now() - started).toBeLessThan(8_000)
    expect(await live.counts()).toEqual({ completed: 1 })
  })

  it('a handler that throws is retried with backoff', async () => {
    const q = queue(freshSchema(), { retryDelaySeconds: 1 })
    await q.enqueue({ runId: 'run_flaky', sessionId: 's' })
    const attempts: number[] = []
    const controller = new AbortController()
    await q.work(
      async () => {
        attempts.push(Date.now())
        if (attempts.length === 1) throw new Error('transient')
        controller.abort()
      },
      { concurrency: 1, signal: controller.signal },
    )
    expect(attempts).toHaveLength(2)
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(900)
    expect(await q.counts()).toEqual({ completed: 1 })
  })

  it('a job refused for a busy session waits a short while and tries again, without using its retries', async () => {
    // retryLimit 0: a failure would end the job at once. A busy session is not a failure: the soak's jobs waited
    // behind a crashed run for pg-boss's exponential backoff (minutes, after a few refusals) and used up retries.
    const schema = freshSchema()
    const q = queue(schema, { retryLimit: 0, retryDelaySeconds: 1 })
    await q.enqueue({ runId: 'run_waiting', sessionId: 's' })
    const attempts: number[] = []
    const controller = new AbortController()
    const giveUp = setTimeout(() => controller.abort(), 15_000)
    await q.work(
      async () => {
        attempts.push(Date.now())
        if (attempts.length <= 3) throw new SessionBusyError('session "s" has an unfinished run')
        controller.abort()
      },
      { concurrency: 1, signal: controller.signal },
    )
    clearTimeout(giveUp)
    expect(attempts).toHaveLength(4)
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!)
    // Each wait is about retryDelaySeconds (0.75–1.25 s, plus a poll): not 1, 2, 4 s…
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(700)
      expect(gap).toBeLessThan(2_500)
    }
    expect(await q.counts()).toEqual({ completed: 1 })
    const pool = new pg.Pool({ connectionString: databaseUrl })
    cleanups.push(() => pool.end())
    const { rows } = await pool.query(`SELECT retry_count FROM "${schema}_queue".job`)
    expect(rows).toHaveLength(1)
    expect(rows[0].retry_count).toBe(0)
  })

  it('graceful shutdown finishes the jobs in flight and leaves the others queued', async () => {
    const q = queue(freshSchema())
    for (let i = 0; i < 3; i++) await q.enqueue({ runId: `run_${i}`, sessionId: 's' })
    const controller = new AbortController()
    const finished: string[] = []
    const working = q.work(
      async (job) => {
        controller.abort()
        await sleep(200)
        finished.push(job.runId)
      },
      { concurrency: 1, signal: controller.signal },
    )
    await working
    expect(finished).toHaveLength(1)
    expect(await q.counts()).toEqual({ completed: 1, created: 2 })
  })

  it('postgresScaleOut: runtime.enqueue in one runtime, runtime.work in two others', async () => {
    const schema = freshSchema()
    const runtimes = []
    for (let i = 0; i < 3; i++) {
      const plugin = postgresScaleOut({ connectionString: databaseUrl, schema, queue: { maintenanceIntervalSeconds: 1, pollIntervalMs: 100 } })
      const extensions = new Extensions().use(plugin)
      cleanups.push(() => extensions.dispose())
      await extensions.ready()
      expect(extensions.queue).toBe(plugin.queue)
      expect(extensions.gate).toBe(plugin.gate)
      runtimes.push(new AgentRuntime(extensions))
    }
    const agent = { name: 'echo', model: mockModel((request) => ({ text: `echo ${String(request.messages.at(-1)?.content)}`, delayMs: 20 })) }
    const [enqueuer, ...workers] = runtimes
    const ids: Array<{ runId: string; sessionId: string }> = []
    for (let i = 0; i < 8; i++) ids.push(await enqueuer!.enqueue({ agent, input: `q${i}`, sessionId: `s${i % 2}`, idempotencyKey: `k${i}` }))
    expect((await enqueuer!.enqueue({ agent, input: 'q0', sessionId: 's0', idempotencyKey: 'k0' })).runId).toBe(ids[0]!.runId)
    const controller = new AbortController()
    const working = workers.map((worker) => worker.work({ concurrency: 2, signal: controller.signal, agents: [agent] }))
    await expect
      .poll(
        async () => (await Promise.all(ids.map(async ({ runId }) => (await enqueuer!.runs.getRun(runId))?.status))).every((status) => status === 'completed'),
        {
          timeout: 15_000,
          interval: 200,
        },
      )
      .toBe(true)
    controller.abort()
    await Promise.all(working)
    for (const { runId } of ids) {
      const events = await enqueuer!.runs.listEvents(runId)
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1))
      expect(events.at(-1)?.type).toBe('run.finished')
    }
    for (const session of ['s0', 's1']) {
      const entries = await enqueuer!.sessions.listEntries(session)
      expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1))
      expect(entries).toHaveLength(8)
    }
  })
})

// Scale-out soak on a real PostgreSQL: four worker processes work queued runs over shared sessions while the
// parent SIGKILLs a random worker every few seconds (and starts a new one), or terminates every backend
// connection of the workers. SPINDLE_PG_SOAK_RUNS sets the run count (default 60; 500 in .ci/run).
import { AgentRuntime, Extensions } from '@spindle/core'
import { afterEach, expect, it } from 'vitest'
import { postgresScaleOut } from '../postgres-scale-out.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from '../test-support/postgres-test-database.js'
import { runSoakCampaign, type SoakCampaignOptions } from './soak-harness.js'
import { checkSoakInvariants } from './soak-invariants.js'
import { SoakSubscriber } from './soak-subscriber.js'
import { createSoakTables, soakAgent, soakTask } from './soak-workload.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

const soakRuns = Number(process.env.SPINDLE_PG_SOAK_RUNS ?? 60)
const seed = Number(process.env.SPINDLE_PG_SOAK_SEED ?? 20_250_601)
/** The campaign's limit (a loaded machine starts each worker slowly); the test's own timeout follows it. */
const campaignTimeoutMs = (runs: number) => Number(process.env.SPINDLE_PG_SOAK_TIMEOUT_MS ?? 120_000 + runs * 1500)

async function soak(runs: number, disruption: Pick<SoakCampaignOptions, 'killEveryMs' | 'terminateEveryMs'>) {
  const schema = randomSchemaName()
  cleanups.push(async () => {
    if (process.env.SPINDLE_PG_SOAK_KEEP) return console.info(`[soak] kept schema ${schema}`)
    await dropSchema(`${schema}_queue`)
    await dropSchema(schema)
  })
  const scaleOut = postgresScaleOut({ connectionString: databaseUrl, schema })
  const extensions = new Extensions().use(scaleOut)
  cleanups.push(() => extensions.dispose())
  await extensions.ready()
  await createSoakTables(scaleOut.pool, schema)
  const sessions = Math.min(20, runs)
  const tasks = Array.from({ length: runs }, (_, index) => soakTask(seed, index, sessions))
  const runtime = new AgentRuntime(extensions)
  // A live subscriber in this process for the whole campaign, over the bus; its own LISTEN connection is terminated
  // every ~1.5 s while workers die, and it must end holding exactly each run's stored log.
  const subscription = new AbortController()
  const subscriber = new SoakSubscriber(runtime.subscribe({ capacity: 100_000, signal: subscription.signal }))
  cleanups.push(async () => subscription.abort())
  let listenTerminations = 0
  const terminateListen = setInterval(() => {
    void (async () => {
      const pid = await scaleOut.events.listenerBackendPid()
      if (pid === undefined) return
      const { rows } = await scaleOut.pool.query<{ terminated: boolean }>('SELECT pg_terminate_backend($1) AS terminated', [pid])
      if (rows[0]?.terminated) listenTerminations++
    })().catch(() => {})
  }, 1500)
  cleanups.push(async () => clearInterval(terminateListen))
  const runIds: string[] = []
  for (const task of tasks) {
    const { runId } = await runtime.enqueue({ agent: soakAgent(task), sessionId: task.sessionId, input: task.input, idempotencyKey: task.idempotencyKey })
    runIds.push(runId)
  }
  const log: string[] = []
  const report = await runSoakCampaign({
    databaseUrl,
    schema,
    seed,
    runs,
    sessions,
    workers: 4,
    concurrency: 3,
    leaseMs: 3000,
    timeoutMs: campaignTimeoutMs(runs),
    settled: async () => Object.keys(await scaleOut.queue.counts()).every((state) => state === 'completed'),
    log: (line) => {
      log.push(line)
      if (process.env.SPINDLE_PG_SOAK_VERBOSE) console.info(`[soak] ${line}`)
    },
    ...disruption,
  })
  clearInterval(terminateListen)
  await subscriber.settle(runtime.runs, runIds, 20_000)
  const live = { ...subscriber.figures, listenTerminations, problems: await subscriber.problems(runtime.runs, runIds) }
  subscription.abort()
  const findings = await checkSoakInvariants({
    pool: scaleOut.pool,
    schema,
    stores: runtime.extensions.stores as never,
    tasks,
    runIds,
    killedAt: report.killedAt,
  })
  const queueCounts = await scaleOut.queue.counts()
  console.info(
    `[soak] ${runs} runs over ${sessions} sessions in ${report.durationMs} ms: ${report.lives} worker lives, ${report.kills} SIGKILLs, ` +
      `${report.terminations} terminate rounds (${report.terminatedBackends} backends); ${findings.resumedRuns} runs resumed, ` +
      `${findings.effects} side effects, ${findings.unknownOutcomes} unknown outcomes, ${findings.activities} activities; ` +
      `runs ${JSON.stringify(findings.statuses)}; jobs ${JSON.stringify(queueCounts)}; live subscriber: ${live.delivered} events delivered, ` +
      `${live.discardedHeld} later declared discarded, ${live.lagged} lagged, its LISTEN connection terminated ${live.listenTerminations} times`,
  )
  return { report, findings, queueCounts, live }
}

describePostgres('scale-out soak (worker processes on PostgreSQL)', () => {
  it(
    `${soakRuns} runs over 20 sessions, four workers, a random worker SIGKILLed every few seconds`,
    { timeout: campaignTimeoutMs(soakRuns) + 90_000 },
    async () => {
      const { report, findings, queueCounts, live } = await soak(soakRuns, { killEveryMs: 4000 })
      expect(findings.violations).toEqual([])
      // The live subscriber ends holding exactly every run's stored log, though it saw numbers a kill later discarded
      // and its LISTEN connection was terminated under it.
      expect(live.problems).toEqual([])
      expect(live.listenTerminations).toBeGreaterThan(0)
      expect(report.kills).toBeGreaterThan(0)
      // Kills land on workers holding runs: some runs were taken over by another worker and resumed.
      expect(findings.resumedRuns).toBeGreaterThan(0)
      expect(findings.statuses).toEqual({ 'completed/stop': soakRuns })
      // Every job ends completed: none was dropped after its retries.
      expect(queueCounts).toEqual({ completed: soakRuns })
    },
  )

  it('pg_terminate_backend on every worker connection mid-run: the runs recover', { timeout: campaignTimeoutMs(40) + 90_000 }, async () => {
    const { report, findings, live } = await soak(40, { terminateEveryMs: 1000 })
    expect(report.terminatedBackends).toBeGreaterThan(0)
    expect(findings.violations).toEqual([])
    expect(live.problems).toEqual([])
    expect(findings.statuses).toEqual({ 'completed/stop': 40 })
  })
})

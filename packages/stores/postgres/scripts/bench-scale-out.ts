// Scale-out benchmark on the PostgreSQL at DATABASE_URL: runs/s for 1, 2 and 4 worker processes working one queue,
// and the per-step cost of a run in one process on PostgreSQL (stores only, and the full scale-out set: stores,
// gate, bus, queue) next to in-memory stores. (SQLite's per-step cost, measured the same way: `pnpm bench --suite durable`.)
//   node --conditions=@spindle/source --import tsx packages/stores/postgres/scripts/bench-scale-out.ts [--quick]
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut, postgresStores } from '../src/index.js'
import { benchAgent } from './bench-agent.js'

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const quick = process.argv.includes('--quick')
const workerPath = fileURLToPath(new URL('./bench-worker.ts', import.meta.url))
const packageDirectory = fileURLToPath(new URL('..', import.meta.url))

const schemaName = () => `bench_scale_${randomBytes(4).toString('hex')}`

async function dropSchemas(pool: { query(text: string): Promise<unknown> }, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}_queue" CASCADE`)
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
}

/** Runs/s of `workers` worker processes (concurrency each) on `runs` queued runs of `steps` steps over `sessions` sessions. */
async function throughput(
  workers: number,
  runs: number,
  sessions: number,
  steps: number,
  concurrency: number,
): Promise<{ runsPerSecond: number; enqueuePerSecond: number }> {
  const schema = schemaName()
  const scaleOut = postgresScaleOut({ connectionString: databaseUrl, schema })
  const extensions = new Extensions().use(scaleOut)
  await extensions.ready()
  const runtime = new AgentRuntime(extensions)
  const agent = benchAgent(steps)
  try {
    const enqueueStarted = performance.now()
    for (let i = 0; i < runs; i++) await runtime.enqueue({ agent, sessionId: `s${i % sessions}`, input: `run ${i}` })
    const enqueuePerSecond = runs / ((performance.now() - enqueueStarted) / 1000)
    const children = Array.from({ length: workers }, () =>
      spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', workerPath, JSON.stringify({ databaseUrl, schema, concurrency, steps })], {
        cwd: packageDirectory,
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    )
    await Promise.all(
      children.map((child) => new Promise<void>((resolve) => child.stdout!.on('data', (data: Buffer) => data.toString().includes('READY') && resolve()))),
    )
    const started = performance.now()
    for (const child of children) child.stdin!.write('GO\n')
    for (;;) {
      const { rows } = await scaleOut.pool.query<{ count: string }>(`SELECT count(*) AS count FROM "${schema}".runs WHERE status = 'completed'`)
      if (Number(rows[0]!.count) >= runs) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const seconds = (performance.now() - started) / 1000
    await Promise.all(children.map((child) => new Promise((resolve) => (child.on('exit', resolve), child.kill('SIGTERM')))))
    return { runsPerSecond: runs / seconds, enqueuePerSecond }
  } finally {
    await dropSchemas(scaleOut.pool, schema)
    await extensions.dispose()
  }
}

/** Median wall time per step of `rounds` sequential `steps`-step runs, each on its own session, after one warm-up run. */
async function perStep(runtime: AgentRuntime, steps: number, rounds: number): Promise<number> {
  const agent = benchAgent(steps)
  await runtime.run({ agent, input: 'warm-up' })
  const samples: number[] = []
  for (let round = 0; round < rounds; round++) {
    const started = performance.now()
    const output = await runtime.run({ agent, input: `round ${round}` })
    if (output.steps !== steps) throw new Error(`expected ${steps} steps, got ${output.steps}`)
    samples.push((performance.now() - started) / steps)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

const runs = quick ? 40 : 200
const sessions = quick ? 20 : 50
const steps = 2
const concurrency = 4
console.log(
  `\nThroughput: ${runs} queued runs of ${steps} steps (a tool call, then the answer) over ${sessions} sessions; each worker a process with concurrency ${concurrency}\n`,
)
console.log('| workers | runs/s | enqueue/s (one process) |')
console.log('| --- | --- | --- |')
for (const workers of [1, 2, 4]) {
  const result = await throughput(workers, runs, sessions, steps, concurrency)
  console.log(`| ${workers} | ${result.runsPerSecond.toFixed(1)} | ${result.enqueuePerSecond.toFixed(0)} |`)
}

const stepCount = 10
const rounds = quick ? 3 : 9
console.log(`\nPer-step wall time of a ${stepCount}-step run in one process (median of ${rounds} runs)\n`)
console.log('| stores | ms per step |')
console.log('| --- | --- |')
console.log(`| in-memory | ${(await perStep(new AgentRuntime(new Extensions(), { maxSteps: 50 }), stepCount, rounds)).toFixed(2)} |`)
{
  const schema = schemaName()
  const stores = postgresStores({ connectionString: databaseUrl, schema })
  const extensions = new Extensions().use(stores)
  await extensions.ready()
  console.log(
    `| PostgreSQL stores (in-process gate and bus) | ${(await perStep(new AgentRuntime(extensions, { maxSteps: 50 }), stepCount, rounds)).toFixed(2)} |`,
  )
  await dropSchemas(stores.pool, schema)
  await extensions.dispose()
}
{
  const schema = schemaName()
  const scaleOut = postgresScaleOut({ connectionString: databaseUrl, schema })
  const extensions = new Extensions().use(scaleOut)
  await extensions.ready()
  console.log(
    `| postgresScaleOut (stores, PostgreSQL gate and bus) | ${(await perStep(new AgentRuntime(extensions, { maxSteps: 50 }), stepCount, rounds)).toFixed(2)} |`,
  )
  await dropSchemas(scaleOut.pool, schema)
  await extensions.dispose()
}

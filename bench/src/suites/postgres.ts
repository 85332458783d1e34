// Suite — postgres: per-step cost of a durable 10-step run on PostgreSQL (warm session with 10 prior messages),
// Spindle's stores against LangGraph.js with its PostgreSQL checkpointer on the same server and workload, each in a
// schema of its own; with the server's default durability and with `synchronous_commit=off`. Round trips counted.
import { AgentRuntime, Extensions } from '@spindle/core'
import type { PostgresStores } from '@spindle/store-postgres'
import { type BenchConfig, cell, check, measure, type Report, type Variant } from '../harness.js'
import { langgraphDurable } from '../peers/langgraph.js'
import { type LanggraphPostgres, langgraphPostgres } from '../peers/langgraph-postgres.js'
import { countRoundTrips, type WireCount } from '../pg-round-trips.js'
import { policyFor, spindleRun } from '../workload.js'

const stepsPerRun = 10
const history = 10
const probeTimeoutMs = 5_000
let counter = 0

/** The connection string with `-c <setting>` in its `options` parameter (pg passes it to the server at connect). */
function withSetting(url: string, setting: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c ${setting}`)
  return parsed.toString()
}

async function within<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), probeTimeoutMs).unref()))])
  } finally {
    clearTimeout(timer)
  }
}

interface Contender {
  name: string
  wire: WireCount
  variant: Variant
  /** One run, counted on the wire, after the measurement. */
  countedRun(): Promise<void>
  close(): Promise<void>
}

async function spindleContender(name: string, connectionString: string, schema: string): Promise<Contender> {
  const module = await import('@spindle/store-postgres')
  const stores: PostgresStores = module.postgresStores({ connectionString, schema })
  const wire = countRoundTrips(stores.pool)
  const extensions = new Extensions().use(stores)
  try {
    await within(extensions.ready(), `no answer within ${probeTimeoutMs / 1000} s`)
  } catch (error) {
    await extensions.dispose().catch(() => {})
    throw error
  }
  let current: { runtime: AgentRuntime; sessionId: string; runId?: string } | undefined
  // A warm session: a fresh runtime, a session with `history` prior messages and one run on it (its window cached).
  const before = async () => {
    const runtime = new AgentRuntime(extensions, policyFor(stepsPerRun))
    const sessionId = `bench_pg_${process.pid}_${++counter}`
    await runtime.sessions.createSession({ id: sessionId })
    await runtime.sessions.append(
      sessionId,
      Array.from({ length: history }, (_, index) =>
        index % 2
          ? { kind: 'message' as const, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text: `answer ${index}` }] } }
          : { kind: 'message' as const, message: { role: 'user' as const, content: `question ${index}` } },
      ),
    )
    await spindleRun(runtime, stepsPerRun, { sessionId })
    current = { runtime, sessionId }
  }
  const run = async () => {
    current!.runId = (await spindleRun(current!.runtime, stepsPerRun, { sessionId: current!.sessionId })).runId
  }
  const after = async () => {
    const { runtime, sessionId, runId } = current!
    // Durable: the run's record says completed, and its event log ends with run.finished.
    const record = await runtime.runs.getRun(runId!)
    check(record?.status === 'completed' && record.step === stepsPerRun + 1, `${name}: run record ${record?.status} at step ${record?.step}`)
    check((await runtime.runs.listEvents(runId!)).at(-1)?.type === 'run.finished', `${name}: the event log does not end with run.finished`)
    await runtime.sessions.deleteSession(sessionId)
    current = undefined
  }
  return {
    name,
    wire,
    variant: { name, before, run, after },
    async countedRun() {
      await before()
      Object.assign(wire, { statements: 0, roundTrips: 0 })
      await run()
      // The run's own traffic only: the checks of after() are not the run's.
      const counted = { ...wire }
      await after()
      Object.assign(wire, counted)
    },
    async close() {
      await stores.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {})
      await extensions.dispose()
    },
  }
}

async function langgraphContender(name: string, connectionString: string, schema: string): Promise<Contender> {
  let wire: WireCount = { statements: 0, roundTrips: 0 }
  const saver: LanggraphPostgres = await within(
    langgraphPostgres(connectionString, schema, (pool) => (wire = countRoundTrips(pool))),
    `no answer within ${probeTimeoutMs / 1000} s`,
  )
  let thread = ''
  // A thread pre-filled with `history` messages, as the durable suite's SqliteSaver peer (LangGraph keeps no state
  // between runs but the checkpoints: every run reads the thread's latest one).
  const before = async () => {
    thread = `thread_${process.pid}_${++counter}`
    await langgraphDurable(saver.checkpointer, thread, stepsPerRun, history)
  }
  const run = () => langgraphDurable(saver.checkpointer, thread, stepsPerRun)
  return {
    name,
    get wire() {
      return wire
    },
    variant: { name, before, run },
    async countedRun() {
      await before()
      Object.assign(wire, { statements: 0, roundTrips: 0 })
      await run()
    },
    close: () => saver.close(),
  }
}

export async function postgresSuite(config: BenchConfig, report: Report): Promise<void> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const title = `PostgreSQL durable: per step of a ${stepsPerRun}-step run on a warm session (${history} prior messages) — median (min–max)`
  const headers = ['variant', 'wall µs/step', 'CPU µs/step', 'round trips/step', 'statements/step']
  const asynchronous = withSetting(url, 'synchronous_commit=off')
  const contenders: Contender[] = []
  try {
    contenders.push(await spindleContender('spindle PostgreSQL (warm)', url, `bench_pg_${process.pid}`))
    contenders.push(await langgraphContender('langgraph PostgresSaver', url, `bench_lg_${process.pid}`))
    contenders.push(await spindleContender('spindle PostgreSQL, synchronous_commit=off (warm)', asynchronous, `bench_pg_async_${process.pid}`))
    contenders.push(await langgraphContender('langgraph PostgresSaver, synchronous_commit=off', asynchronous, `bench_lg_async_${process.pid}`))
  } catch (error) {
    for (const contender of contenders) await contender.close().catch(() => {})
    const reason = `not measured — PostgreSQL not reachable at ${url.replace(/\/\/[^@]*@/, '//')}: ${(error as Error).message}`
    report.table(title, headers, [[reason, '—', '—', '—', '—']])
    return
  }
  const lines: Array<Array<string | number>> = []
  try {
    // JIT warm-up of every variant alike, then interleaved rounds (each sample a fresh warm session / thread).
    for (const { variant } of contenders) {
      const until = performance.now() + (config.quick ? 150 : 1_500)
      do {
        await variant.before?.()
        await variant.run()
        await variant.after?.()
      } while (performance.now() < until)
    }
    const samples = await measure(
      contenders.map((contender) => contender.variant),
      { rounds: config.quick ? 3 : 15, warmup: 1, unitsPerRun: stepsPerRun },
    )
    for (const contender of contenders) {
      await contender.countedRun()
      const { wall, cpu } = samples.get(contender.name)!
      const base = { suite: 'postgres', case: `${stepsPerRun}-step run on a warm session`, variant: contender.name, n: history }
      const wallRow = report.add({ ...base, metric: 'wall per step', unit: 'µs' }, wall)
      const cpuRow = report.add({ ...base, metric: 'cpu per step', unit: 'µs' }, cpu)
      const roundTrips = report.add({ ...base, metric: 'round trips per step', unit: 'round trips' }, contender.wire.roundTrips / stepsPerRun)
      lines.push([contender.name, cell(wallRow), cell(cpuRow), roundTrips.median, contender.wire.statements / stepsPerRun])
    }
  } finally {
    for (const contender of contenders) await contender.close().catch(() => {})
  }
  report.table(
    title,
    headers,
    lines,
    [
      `One sample: a ${stepsPerRun}-step run (a scripted model calling the \`add\` tool ${stepsPerRun} times, then answering "done") on a session that already holds ${history} messages and one earlier run — Spindle: a fresh AgentRuntime over \`postgresStores()\` (the session's window cached by that earlier run); LangGraph: \`createReactAgent\` with \`PostgresSaver\` from \`@langchain/langgraph-checkpoint-postgres\`, on a thread pre-filled with \`updateState\` (the durable suite's SqliteSaver peer's workload).`,
      `Same server (DATABASE_URL, a local PostgreSQL), same process, interleaved rounds; each framework in a schema of its own, dropped at the end. Every run is asserted (answer, ${stepsPerRun} tool executions, ${stepsPerRun + 1} model calls); each Spindle sample also checks the run record (completed) and its event log (ends with run.finished).`,
      'Default durability = the server\'s `synchronous_commit` (on: each commit waits for its WAL flush). "synchronous_commit=off" = the same pool with `options=-c synchronous_commit=off` in its connection string: a crash of the server may lose the last few hundred ms of commits (never corrupts them); Spindle leaves this to the application.',
      "Round trips and statements per step: counted on the wire on one more run of each variant after the measurement (a send on an idle connection, or after a reply, is a round trip; statements sent together before any reply count once), including the run's start and end.",
    ].join(' '),
  )
}

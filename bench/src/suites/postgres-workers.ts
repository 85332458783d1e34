// Suite — postgres-workers: queued runs executed by separate worker PROCESSES on one PostgreSQL with
// `postgresScaleOut` (the stores, the session gate, the LISTEN/NOTIFY event bus and the pg-boss run queue). A client
// runtime in the bench process enqueues a burst of runs; W forked workers (postgres-worker-process.ts) run
// `runtime.work({ concurrency })`: runs/s and enqueue → finished latency (median, p95) per worker count.
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { AgentRuntime, type AgentEvent, type AgentSpec, Extensions } from '@spindle/core'
import { type PostgresScaleOut, postgresScaleOut } from '@spindle/store-postgres'
import { type BenchConfig, cell, check, type Report } from '../harness.js'
import { addTool, finalText, policyFor, scriptedModel } from '../workload.js'
import type { WorkerCommand, WorkerMessage } from './postgres-worker-process.js'

export const steps = 5
const probeTimeoutMs = 5_000
const workerEntry = fileURLToPath(new URL('./postgres-worker-process.ts', import.meta.url))

/** The provider the workers register: a fresh scripted model each time a run's model is resolved. */
export const workerProviderName = 'bench-scripted'

/**
 * The agent the client enqueues and the workers execute. A queued run's model is resolved by the worker that runs
 * it (`work()` → `resume()` → the provider registry, once per run), so the model is an id: a mockModel carries its
 * turn index, and one shared instance would continue the second run where the first ended. The client resolves
 * the id too (`enqueue()` records it) but never calls the model.
 */
export const workerAgent: AgentSpec = { name: 'bench-worker', model: `${workerProviderName}:${steps}-steps`, tools: { add: addTool } }

interface GridCase {
  /** Worker processes. */
  workers: number
  concurrency: number
}

/** The client: one AgentRuntime on its own `postgresScaleOut` in the bench process. */
interface Client {
  runtime: AgentRuntime
  plugin: PostgresScaleOut
}

/** W forked worker processes. */
interface Fleet {
  /** Set when a worker failed or exited: the round stops waiting for runs nobody executes. */
  failure: { error: unknown } | undefined
  /** Every worker's scripted models (their last turn index) and tool executions since its last report. */
  report(): Promise<{ modelTurns: number[]; executions: number }>
  stop(): Promise<void>
}

interface RoundResult {
  runsPerSecond: number
  /** Enqueue call → the client receives the run's terminal event, ms. */
  latencies: number[]
  /** The run record's startedAt → finishedAt (on the worker), ms. */
  executions: number[]
  /** Runs whose terminal event never reached the client (found by reading their records). */
  missedEvents: number
}

/** Resolves with `promise`, or rejects after `ms` (the timer never keeps the process alive). */
async function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms)
        timer.unref()
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** The client runtime, or why PostgreSQL cannot be used. */
async function connectClient(connectionString: string, schema: string): Promise<Client | string> {
  // A connect timeout on the client's pool so that an unanswered connection attempt ends instead of lingering.
  const plugin = postgresScaleOut({ connectionString, schema, poolOptions: { connectionTimeoutMillis: probeTimeoutMs } })
  const extensions = new Extensions().use(plugin)
  // `enqueue()` resolves the model id (to record it); the client never calls the model: the workers do.
  extensions.providers.registerProvider(workerProviderName, { languageModel: () => scriptedModel(steps) })
  try {
    await within(extensions.ready(), probeTimeoutMs, `no answer within ${probeTimeoutMs / 1000} s`)
  } catch (error) {
    await within(extensions.dispose(), probeTimeoutMs, 'dispose timed out').catch(() => {})
    return `PostgreSQL not reachable at ${connectionString.replace(/\/\/[^@]*@/, '//')}: ${(error as Error).message}`
  }
  return { runtime: new AgentRuntime(extensions, policyFor(steps)), plugin }
}

/** Resolves with the child's next message of `type` (rejects on a failure, an exit, or after `ms`). */
function nextMessage<T extends WorkerMessage['type']>(child: ChildProcess, type: T, ms: number): Promise<Extract<WorkerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(new Error(`[spindle/bench] worker ${child.pid}: no ${type} within ${ms / 1000} s`)), ms)
    const onMessage = (message: WorkerMessage) => {
      if (message.type === type) settle(undefined, message as Extract<WorkerMessage, { type: T }>)
      else if (message.type === 'failed') settle(new Error(`[spindle/bench] worker ${child.pid} failed: ${message.message}`))
    }
    const onExit = (code: number | null) => settle(new Error(`[spindle/bench] worker ${child.pid} exited (${code}) before ${type}`))
    function settle(error: Error | undefined, message?: Extract<WorkerMessage, { type: T }>) {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve(message!)
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}

/** Forks the workers and waits until each is connected and working (start-up is not measured). */
async function startFleet(connectionString: string, schema: string, { workers, concurrency }: GridCase): Promise<Fleet> {
  let stopping = false
  const children = Array.from({ length: workers }, () =>
    fork(workerEntry, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  )
  const fleet: Fleet = {
    failure: undefined,
    async report() {
      const reports = await Promise.all(
        children.map((child) => {
          const reply = nextMessage(child, 'report', 10_000)
          child.send({ type: 'report' } satisfies WorkerCommand)
          return reply
        }),
      )
      return { modelTurns: reports.flatMap((report) => report.modelTurns), executions: reports.reduce((sum, report) => sum + report.executions, 0) }
    },
    async stop() {
      // Graceful: stop claiming, let runs in flight finish, close the queue, bus, gate and pool; kill a hung one.
      stopping = true
      await Promise.allSettled(
        children.map(async (child) => {
          if (child.exitCode !== null || !child.connected) return
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
          child.send({ type: 'stop' } satisfies WorkerCommand)
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
          await exited
          clearTimeout(timer)
        }),
      )
    },
  }
  for (const child of children) {
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'failed') fleet.failure ??= { error: new Error(message.message) }
    })
    child.once('exit', (code) => {
      if (!stopping) fleet.failure ??= { error: new Error(`worker ${child.pid} exited with code ${code}`) }
    })
  }
  try {
    await Promise.all(
      children.map((child) => {
        const ready = nextMessage(child, 'ready', 60_000)
        child.send({ type: 'start', connectionString, schema, concurrency, steps } satisfies WorkerCommand)
        return ready
      }),
    )
  } catch (error) {
    await fleet.stop()
    throw error
  }
  return fleet
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!
}

/** Tool results in the run's session log whose value is the right sum (a + b with a = the turn, b = 1), and its answer. */
async function sessionWork(runtime: AgentRuntime, sessionId: string, runId: string): Promise<{ toolResults: number; answer: string }> {
  let toolResults = 0
  let answer = ''
  for (const entry of await runtime.sessions.listEntries(sessionId)) {
    if (entry.kind !== 'message' || entry.runId !== runId) continue
    const message = entry.message
    if (message.role === 'tool') {
      for (const part of message.content) if (!part.isError && part.result === Number(part.toolCallId.slice('call_'.length)) + 1) toolResults++
    } else if (message.role === 'assistant') {
      answer = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
    }
  }
  return { toolResults, answer }
}

/** Asserts from the stores that the run did its work: run record, event log and session log. Returns its execution time. */
async function verifyRun(runtime: AgentRuntime, runId: string, sessionId: string): Promise<number> {
  const label = `queued run ${runId}`
  const record = await runtime.runs.getRun(runId)
  check(record?.status === 'completed', `${label}: status ${record?.status} ${record?.error ? JSON.stringify(record.error) : ''}`)
  check(record.finishReason === 'stop', `${label}: finishReason ${record.finishReason}`)
  check(record.step === steps + 1, `${label}: ${record.step} steps, expected ${steps + 1}`)
  check(record.startedAt !== undefined && record.finishedAt !== undefined, `${label}: no startedAt / finishedAt`)
  const events = await runtime.runs.listEvents(runId)
  check(
    events.every((event, index) => event.seq === index + 1),
    `${label}: event log not gap-free`,
  )
  const toolEvents = events.filter((event) => event.type === 'tool.result').length
  check(toolEvents === steps, `${label}: ${toolEvents} tool.result events, expected ${steps}`)
  const last = events.at(-1)
  check(last?.type === 'run.finished' && last.finishReason === 'stop' && last.text === finalText, `${label}: last event ${JSON.stringify(last)}`)
  const { toolResults, answer } = await sessionWork(runtime, sessionId, runId)
  check(toolResults === steps, `${label}: ${toolResults} correct tool results in the session log, expected ${steps}`)
  check(answer === finalText, `${label}: answered "${answer}"`)
  return record.finishedAt - record.startedAt
}

/**
 * Enqueues `runs` runs at once (each on its own session) and waits until the client has seen every run end: its
 * terminal event over the event bus, or, after a second without one, its record (a lost notification must not hang
 * the round). Then asserts every run.
 */
async function executeRound(client: Client, fleet: Fleet, runs: number, label: string, timeoutMs: number): Promise<RoundResult> {
  const observed = new Map<string, { at: number; event?: AgentEvent }>()
  let wake: (() => void) | undefined
  // Subscribed before the first enqueue: a fast run's run.finished cannot be missed.
  const listening = new AbortController()
  const subscription = client.runtime.subscribe({ types: ['run.finished', 'run.failed'], capacity: runs * 2, signal: listening.signal })
  const consuming = (async () => {
    for await (const event of subscription) {
      if (event.type !== 'lagged' && !observed.has(event.runId)) observed.set(event.runId, { at: performance.now(), event })
      wake?.()
    }
  })()
  let missedEvents = 0
  let enqueued: Array<{ runId: string; sessionId: string; enqueuedAt: number }> = []
  try {
    enqueued = await Promise.all(
      Array.from({ length: runs }, async (_, index) => {
        const enqueuedAt = performance.now()
        const { runId, sessionId } = await client.runtime.enqueue({ agent: workerAgent, input: 'go', sessionId: `${label}_${index}` })
        return { runId, sessionId, enqueuedAt }
      }),
    )
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const pending = enqueued.filter((run) => !observed.has(run.runId))
      if (!pending.length) break
      if (fleet.failure) throw new Error(`[spindle/bench] a worker stopped: ${(fleet.failure.error as Error).message}`)
      const seen = observed.size
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
      if (observed.size > seen) continue
      for (const run of pending) {
        const record = await client.runtime.runs.getRun(run.runId)
        if (record?.status !== 'completed' && record?.status !== 'failed' && record?.status !== 'cancelled') continue
        observed.set(run.runId, { at: performance.now() })
        missedEvents++
      }
      if (performance.now() > deadline && enqueued.some((run) => !observed.has(run.runId))) {
        const statuses = await Promise.all(pending.map(async (run) => (await client.runtime.runs.getRun(run.runId))?.status))
        throw new Error(
          `[spindle/bench] ${label}: ${pending.length} of ${runs} runs unfinished after ${timeoutMs / 1000} s (statuses ${JSON.stringify(statuses)}, queue ${JSON.stringify(await client.plugin.queue.counts())})`,
        )
      }
    }
  } finally {
    listening.abort()
    await consuming
  }
  const firstEnqueue = Math.min(...enqueued.map((run) => run.enqueuedAt))
  const lastFinished = Math.max(...enqueued.map((run) => observed.get(run.runId)!.at))
  const latencies: number[] = []
  const executions: number[] = []
  for (const run of enqueued) {
    const { at, event } = observed.get(run.runId)!
    if (event) {
      check(
        event.type === 'run.finished' && event.finishReason === 'stop' && event.text === finalText && event.steps === steps + 1,
        `queued run ${run.runId}: terminal event ${JSON.stringify(event)}`,
      )
    }
    executions.push(await verifyRun(client.runtime, run.runId, run.sessionId))
    latencies.push(at - run.enqueuedAt)
  }
  // One script per run, each consumed to its last turn: no run was executed twice (a retried job) or cut short.
  const { modelTurns, executions: executed } = await fleet.report()
  check(modelTurns.length === runs, `${label}: the workers resolved ${modelTurns.length} models for ${runs} runs`)
  check(
    modelTurns.every((turns) => turns === steps + 1),
    `${label}: model turns ${modelTurns.join(', ')}, expected ${steps + 1} each`,
  )
  check(executed === runs * steps, `${label}: the workers executed ${executed} tools, expected ${runs * steps}`)
  return { runsPerSecond: runs / ((lastFinished - firstEnqueue) / 1000), latencies, executions, missedEvents }
}

export async function postgresWorkersSuite(config: BenchConfig, report: Report): Promise<void> {
  // 1, 2 and 4 worker processes of concurrency 4; a burst per round (32) larger than the widest case's 16 slots.
  // Quick: 1 and 2 processes, a burst of 8, one measured round each.
  const runs = config.quick ? 8 : 32
  const rounds = config.quick ? 1 : 5
  const warmup = 1
  const concurrency = config.quick ? 2 : 4
  const cases: GridCase[] = (config.quick ? [1, 2] : [1, 2, 4]).map((workers) => ({ workers, concurrency }))
  const roundTimeoutMs = config.quick ? 15_000 : 30_000
  const title = `PostgreSQL worker processes: ${runs} queued ${steps}-step runs per round, postgresScaleOut — median (min–max) over ${rounds} round(s)`
  const headers = ['worker processes × concurrency', 'runs/s', 'steps/s', 'latency median ms', 'latency p95 ms', 'execution median ms']
  const connectionString = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  // One schema per process (pg-boss adds `<schema>_queue`), dropped at the end.
  const schema = `bench_workers_${process.pid}`
  const client = await connectClient(connectionString, schema)
  if (typeof client === 'string') {
    report.table(title, headers, [[`not measured — ${client}`, '—', '—', '—', '—', '—']])
    return
  }
  const lines: Array<Array<string | number>> = []
  let missedEvents = 0
  try {
    for (const [caseIndex, gridCase] of cases.entries()) {
      const name = `${gridCase.workers} × ${gridCase.concurrency}`
      const throughput: number[] = []
      const latencies: number[] = []
      const executions: number[] = []
      const fleet = await startFleet(connectionString, schema, gridCase)
      try {
        for (let round = 0; round < warmup + rounds; round++) {
          const result = await executeRound(client, fleet, runs, `workers_${caseIndex}_${round}`, roundTimeoutMs)
          missedEvents += result.missedEvents
          if (round < warmup) continue
          throughput.push(result.runsPerSecond)
          latencies.push(...result.latencies)
          executions.push(...result.executions)
        }
      } finally {
        await fleet.stop()
      }
      const base = {
        suite: 'postgres-workers',
        case: `${gridCase.workers} worker process(es) × concurrency ${gridCase.concurrency}, ${runs} queued ${steps}-step runs per round`,
        variant: 'spindle postgresScaleOut',
        n: runs,
      }
      const runsRow = report.add({ ...base, metric: 'runs per second', unit: 'runs/s' }, throughput)
      const stepsRow = report.add(
        { ...base, metric: 'steps per second', unit: 'steps/s' },
        throughput.map((value) => value * steps),
      )
      const latencyRow = report.add({ ...base, metric: 'latency enqueue → finished', unit: 'ms' }, latencies)
      const p95Row = report.add({ ...base, metric: 'latency enqueue → finished, p95', unit: 'ms' }, percentile(latencies, 0.95))
      const executionRow = report.add({ ...base, metric: 'execution started → finished', unit: 'ms' }, executions)
      lines.push([name, cell(runsRow), cell(stepsRow), latencyRow.median, p95Row.median, executionRow.median])
    }
  } finally {
    // The queue first (its pg-boss maintenance would query the dropped schema), then the schemas, then the rest.
    await client.plugin.queue.close().catch(() => {})
    await client.plugin.pool.query(`drop schema if exists "${schema}_queue" cascade`).catch(() => {})
    await client.plugin.pool.query(`drop schema if exists "${schema}" cascade`).catch(() => {})
    await client.runtime.extensions.dispose()
  }
  report.table(
    title,
    headers,
    lines,
    [
      `A round: one client runtime calls \`runtime.enqueue()\` ${runs} times at once, each a ${steps}-step scripted run (${steps} \`add\` tool calls, then "done") on its own session, and ends when the client has received every run's \`run.finished\`.`,
      "Workers: W separate Node processes (`child_process.fork` of bench/src/suites/postgres-worker-process.ts), each one AgentRuntime calling `runtime.work({ concurrency })` on its own `postgresScaleOut` (its own pool, LISTEN connections and pg-boss), started and connected before the first round; each reports over IPC the scripted models it resolved and its tool executions. The client runs in the bench process. All of them and the PostgreSQL server share the machine's cores (the machine line at the top): past the core count, more processes add queueing, not throughput.",
      'Events reach the client over LISTEN/NOTIFY (PostgresEventBus); the queue is pg-boss (claims with FOR UPDATE SKIP LOCKED, NOTIFY wakes idle workers).',
      `runs/s = ${runs} / (first enqueue → last \`run.finished\` received), steps/s = runs/s × ${steps}; latency = a run's enqueue call → its \`run.finished\` received by the client (median and p95 over all runs, so it includes the wait in the queue behind the burst); execution = the run record's startedAt → finishedAt on the worker.`,
      'Every run is checked: completed with finish reason stop and text "done", its 5 correct tool results in the session log, a gap-free event log; across the workers, one fresh script per run consumed to its last turn and exactly runs × 5 tool executions. The first round of each case is a warm-up (not counted).',
      ...(missedEvents ? [`${missedEvents} run(s) ended without their \`run.finished\` reaching the client; they were found by reading their records.`] : []),
    ].join(' '),
  )
}

// Suite — service: the same small HTTP service (POST /run = one durable 5-step scripted run) built on Spindle +
// SQLite, on the AI SDK (persisting nothing) and on LangGraph.js + SqliteSaver, one node:http child process each,
// driven from this process: closed-loop capacity, then Poisson arrivals at 50 % and 90 % of each one's capacity,
// and Spindle and the AI SDK at one common rate.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchConfig, check, formatNumber, type Report, summarize } from '../harness.js'
import { closedLoop, openLoop, type PhaseResult, quantile, seededRandom, type Service, startService } from '../service/load-driver.js'
import { serviceSteps } from '../service/http-service.js'

const benchRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** Closed-loop clients: enough to keep a one-threaded server busy while answers travel. */
const clients = 16

interface Framework {
  name: string
  entry: string
}

const frameworks: Framework[] = [
  { name: 'spindle + SQLite (durable)', entry: 'spindle-server.ts' },
  { name: 'AI SDK generateText (persists nothing)', entry: 'ai-sdk-server.ts' },
  { name: 'LangGraph.js + SqliteSaver (durable)', entry: 'langgraph-server.ts' },
]

/** Extra node flags for the servers, e.g. `SPINDLE_SERVICE_NODE_FLAGS=--cpu-prof` to profile them. */
const nodeFlags = (process.env.SPINDLE_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean)

function ms(value: number): number {
  return Math.round(value * 10) / 10
}

export async function serviceSuite(config: BenchConfig, report: Report): Promise<void> {
  const warmupMs = config.quick ? 700 : 2_000
  const capacityRounds = config.quick ? 1 : 3
  const capacityMs = config.quick ? 800 : 2_000
  const openMs = config.quick ? 1_000 : 8_000
  const directory = mkdtempSync(join(tmpdir(), 'spindle-bench-service-'))
  const services: Service[] = []
  const lines: Array<Array<string | number>> = []
  /** p99 by framework and phase, for the cross-framework sentence of the note. */
  const p99s = new Map<string, number>()
  let summary = ''
  try {
    for (const framework of frameworks) {
      services.push(await startService(framework.name, new URL(`../service/${framework.entry}`, import.meta.url), [directory], benchRoot, nodeFlags))
    }
    // JIT warm-up of every server (and of this driver) before anything is recorded.
    for (const service of services) await closedLoop(service, clients, warmupMs)
    // Capacity, the frameworks alternating round by round so that the shared machine's slow spells fall on all.
    const capacityRuns = new Map<string, PhaseResult[]>(services.map((service) => [service.name, []]))
    for (let round = 0; round < capacityRounds; round++) {
      for (const service of services) capacityRuns.get(service.name)!.push(await closedLoop(service, clients, capacityMs))
    }
    const capacity = new Map<string, number>()
    const base = { suite: 'service', case: `HTTP service, ${serviceSteps}-step runs`, n: serviceSteps }
    for (const service of services) {
      const rounds = capacityRuns.get(service.name)!
      const perSecond = summarize(rounds.map((round) => round.runsPerSecond))
      capacity.set(service.name, perSecond.median)
      report.add(
        { ...base, variant: service.name, metric: 'capacity', unit: 'runs/s' },
        rounds.map((round) => round.runsPerSecond),
      )
      const latencies = rounds.flatMap((round) => round.latencies)
      const serverCpu = summarize(rounds.map((round) => round.serverCpuPerRun)).median
      const driverCpu = summarize(rounds.map((round) => round.driverCpuPerRun)).median
      lines.push([
        service.name,
        `closed loop, ${clients} clients`,
        '—',
        ms(perSecond.median),
        ms(quantile(latencies, 0.5)),
        ms(quantile(latencies, 0.99)),
        ms(serverCpu),
        ms(driverCpu),
      ])
    }
    // Open loop at 50 % and 90 % of each framework's own capacity.
    const record = (service: Service, label: string, metricSuffix: string, rate: number, phase: PhaseResult) => {
      const p50 = quantile(phase.latencies, 0.5)
      const p99 = quantile(phase.latencies, 0.99)
      p99s.set(`${service.name} ${metricSuffix}`, p99)
      report.add({ ...base, variant: service.name, metric: `throughput ${metricSuffix}`, unit: 'runs/s' }, phase.runsPerSecond)
      report.add({ ...base, variant: service.name, metric: `p50 ${metricSuffix}`, unit: 'ms' }, p50)
      report.add({ ...base, variant: service.name, metric: `p99 ${metricSuffix}`, unit: 'ms' }, p99)
      report.add({ ...base, variant: service.name, metric: `server cpu per run ${metricSuffix}`, unit: 'µs' }, phase.serverCpuPerRun)
      lines.push([service.name, label, ms(rate), ms(phase.runsPerSecond), ms(p50), ms(p99), ms(phase.serverCpuPerRun), ms(phase.driverCpuPerRun)])
    }
    for (const [index, service] of services.entries()) {
      for (const load of [0.5, 0.9]) {
        const rate = load * capacity.get(service.name)!
        const phase = await openLoop(service, rate, openMs, seededRandom(1_000 * index + load * 100))
        check(phase.runs > 0, `${service.name}: no run at ${load * 100} % load`)
        record(service, `Poisson, ${load * 100} % of its capacity`, `at ${load * 100} % of capacity`, rate, phase)
      }
    }
    // Spindle and the AI SDK at one rate both can serve: 90 % of the smaller of their two capacities.
    const [spindle, aiSdk] = services as [Service, Service]
    const commonRate = 0.9 * Math.min(capacity.get(spindle.name)!, capacity.get(aiSdk.name)!)
    for (const service of [spindle, aiSdk]) {
      record(service, 'Poisson, common rate', 'at the common rate', commonRate, await openLoop(service, commonRate, openMs, seededRandom(7)))
    }
    const ratio = capacity.get(spindle.name)! / capacity.get(aiSdk.name)!
    report.add({ ...base, variant: 'spindle / AI SDK', metric: 'capacity ratio', unit: '×' }, ratio)
    const p99Of = (service: Service, suffix: string) => `${formatNumber(p99s.get(`${service.name} ${suffix}`)!)} ms`
    summary = `In this run: Spindle + SQLite's capacity is ${ratio.toFixed(2)}× the AI SDK's (${formatNumber(capacity.get(spindle.name)!)} vs ${formatNumber(capacity.get(aiSdk.name)!)} runs/s); p99 at 90 % of each one's own capacity: ${p99Of(spindle, 'at 90 % of capacity')} vs ${p99Of(aiSdk, 'at 90 % of capacity')}; at the common rate (${formatNumber(commonRate)} runs/s): ${p99Of(spindle, 'at the common rate')} vs ${p99Of(aiSdk, 'at the common rate')}.`
  } finally {
    await Promise.allSettled(services.map((service) => service.stop()))
    rmSync(directory, { recursive: true, force: true })
  }
  report.table(
    `Service under load: an HTTP service running ${serviceSteps}-step runs, one server process per framework`,
    ['framework', 'load', 'offered runs/s', 'throughput runs/s', 'p50 ms', 'p99 ms', 'server CPU µs/run', 'driver CPU µs/run'],
    lines,
    [
      `Each framework serves \`POST /run\` from its own \`node:http\` child process (\`node --import tsx\` on the built packages, one runtime / model / graph for the process): a run is the shared workload (a scripted model asking for one \`add\` tool call per step, ${serviceSteps} steps, then "done"), the model stateless (its turn is the number of tool results it is sent).`,
      'Spindle: `AgentRuntime` on `sqliteStores` (WAL file, synchronous=NORMAL, the package defaults), a new session per request, every half-step durable before the run goes on; the writes of concurrent runs submitted in one event-loop turn share one SQLite transaction (group commit, the writes of each run in a savepoint), so its CPU per run falls as concurrency rises (closed loop, 16 in flight) and is highest at low load. AI SDK: `generateText` with a scripted `LanguageModelV3` that records no calls (as Spindle’s `mockModel` here), nothing persisted. LangGraph.js: `createReactAgent` with `SqliteSaver` (its defaults: WAL, synchronous=FULL), a new thread per request.',
      `The driver is the bench process, on the same 2 cores (its own CPU per run is the last column): keep-alive connections; every answer asserted (status 200, text "done", ${serviceSteps} tool results with the right sums, the server's run count equal to the driver's, no failure). Capacity: ${clients} closed-loop clients sending back to back, ${capacityRounds} round(s) of ${capacityMs / 1000} s per framework, the frameworks alternating (median of the rounds; latencies pooled), after a ${warmupMs / 1000} s warm-up of each.`,
      `Then Poisson arrivals (seeded) for ${openMs / 1000} s at 50 % and 90 % of each framework's own capacity; latency from each run's scheduled arrival to its answer (no coordinated omission); throughput = runs / (first arrival → last answer). "common rate": Spindle and the AI SDK at 90 % of the smaller of their two capacities. Server CPU: \`process.cpuUsage()\` of the server process (user + system, GC included) from \`GET /stats\` before and after the phase, divided by its runs.`,
      summary,
    ].join(' '),
  )
}

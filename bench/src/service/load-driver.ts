// The load driver of the service suite (it runs in the bench process): starts a service as a child process, sends
// it `POST /run` requests over keep-alive connections, closed-loop (K clients back to back) or open-loop (Poisson
// arrivals at a fixed rate), asserts every answer, and reads the server's CPU time from `GET /stats`.
import { fork, type ChildProcess } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { check } from '../harness.js'
import type { ServiceReady, ServiceRunResult, ServiceStats } from './http-service.js'
import { serviceSteps } from './http-service.js'

/** A running service process. */
export interface Service {
  readonly name: string
  readonly child: ChildProcess
  readonly port: number
  /** Keep-alive connections to it, reused by every request of a phase. */
  readonly agent: Agent
  stats(): Promise<ServiceStats>
  stop(): Promise<void>
}

/** What one phase of load measured. */
export interface PhaseResult {
  runs: number
  /** Finished runs per second of the phase (first arrival → last answer). */
  runsPerSecond: number
  /** Per run, ms: from its intended start (its arrival time, open-loop) to its answer. */
  latencies: number[]
  /** Server CPU (user + system) per run, µs, from `/stats` before and after. */
  serverCpuPerRun: number
  /** This process's (the driver's) CPU per run, µs. */
  driverCpuPerRun: number
}

/** Forks `entry` (a server file run through tsx) with `args`; resolves once it listens. */
export async function startService(name: string, entry: URL, args: string[], cwd: string, nodeFlags: string[] = []): Promise<Service> {
  const child = fork(entry, args, { cwd, execArgv: ['--import', 'tsx', ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as ServiceReady).port))
    child.once('exit', (code) => reject(new Error(`[spindle/bench] service ${name} exited with ${code} before listening`)))
    child.once('error', reject)
  })
  const agent = new Agent({ keepAlive: true, maxSockets: 1_024 })
  const service: Service = {
    name,
    child,
    port,
    agent,
    stats: async () => JSON.parse((await send(service, 'GET', '/stats')).body) as ServiceStats,
    async stop() {
      agent.destroy()
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
    },
  }
  return service
}

function send(service: Service, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: service.port, method, path, agent: service.agent }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.on('error', reject)
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

/** One asserted run: status 200, the final text "done", one right tool result per step. */
export async function runOnce(service: Service): Promise<void> {
  const { status, body } = await send(service, 'POST', '/run')
  check(status === 200, `${service.name}: POST /run answered ${status}: ${body.slice(0, 500)}`)
  const result = JSON.parse(body) as ServiceRunResult
  check(result.text === 'done', `${service.name}: run answered "${result.text}"`)
  check(result.toolResults === serviceSteps, `${service.name}: ${result.toolResults} right tool results, expected ${serviceSteps}`)
}

async function measured(service: Service, drive: () => Promise<{ latencies: number[]; seconds: number }>): Promise<PhaseResult> {
  const before = await service.stats()
  const driverBefore = process.cpuUsage()
  const { latencies, seconds } = await drive()
  const driverCpu = process.cpuUsage(driverBefore)
  const after = await service.stats()
  const runs = latencies.length
  check(after.runs - before.runs === runs, `${service.name}: the server counted ${after.runs - before.runs} runs, the driver ${runs}`)
  check(after.failures === before.failures, `${service.name}: ${after.failures - before.failures} failed runs`)
  return {
    runs,
    runsPerSecond: runs / seconds,
    latencies,
    serverCpuPerRun: (after.user + after.system - before.user - before.system) / runs,
    driverCpuPerRun: (driverCpu.user + driverCpu.system) / runs,
  }
}

/** `clients` clients, each sending its next run as soon as the last one answered, for `durationMs`. */
export function closedLoop(service: Service, clients: number, durationMs: number): Promise<PhaseResult> {
  return measured(service, async () => {
    const latencies: number[] = []
    const start = performance.now()
    const until = start + durationMs
    let last = start
    const client = async () => {
      while (performance.now() < until) {
        const sent = performance.now()
        await runOnce(service)
        last = performance.now()
        latencies.push(last - sent)
      }
    }
    await Promise.all(Array.from({ length: clients }, client))
    return { latencies, seconds: (last - start) / 1000 }
  })
}

/**
 * Poisson arrivals at `rate` runs/s for `durationMs`, each sent at its arrival time whatever is still in flight.
 * A run's latency counts from its scheduled arrival, so a late timer or a busy driver adds to it (no coordinated
 * omission). `random` makes the arrivals reproducible.
 */
export function openLoop(service: Service, rate: number, durationMs: number, random: () => number): Promise<PhaseResult> {
  return measured(service, async () => {
    const latencies: number[] = []
    const inFlight: Array<Promise<void>> = []
    const start = performance.now()
    let last = start
    let next = start
    const sendAt = (arrival: number) =>
      runOnce(service).then(() => {
        last = performance.now()
        latencies.push(last - arrival)
      })
    while (next < start + durationMs) {
      const now = performance.now()
      if (next > now) await new Promise((resolve) => setTimeout(resolve, next - now))
      // Every arrival already due goes now (a timer fires 1 ms late at best; arrivals are ~1 ms apart at 1,000/s).
      const due = performance.now()
      while (next <= due && next < start + durationMs) {
        inFlight.push(sendAt(next))
        next += (-Math.log(1 - random()) / rate) * 1000
      }
    }
    await Promise.all(inFlight)
    return { latencies, seconds: (last - start) / 1000 }
  })
}

/** A small seeded generator (mulberry32): the same arrival times in every run of the bench. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** The value at quantile `q` (0–1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

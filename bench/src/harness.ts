// The bench harness: interleaved variants in a balanced order (each round a row of a Williams design), warm-up, medians over repeated samples,
// CPU time, sampled allocation (V8 sampling heap profiler) and result rows for latest.json.
import { Session } from 'node:inspector/promises'

export interface ResultRow {
  suite: string
  case: string
  variant: string
  n: number
  metric: string
  unit: string
  median: number
  min: number
  max: number
}

export interface Summary {
  median: number
  min: number
  max: number
}

/** Median (mean of the two middle values for an even count), min and max. */
export function summarize(values: readonly number[]): Summary {
  if (!values.length) throw new Error('[spindle/bench] summarize() needs at least one value')
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! }
}

/**
 * The order of round `round`: a Williams design, the balanced Latin square of crossover trials. Each round is the
 * base sequence 0, 1, n-1, 2, n-2, … shifted by the round (every variant takes every position once per n rounds),
 * and every variant directly follows every other one equally often (once per n rounds for an even count; for an
 * odd count the mirrored rows of rounds n…2n-1 complete the balance). A plain rotation kept the cyclic order, so
 * each variant always followed the same one and paid for that one's garbage in every round.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const count = items.length
  if (count < 2) return [...items]
  const cycle = count % 2 ? 2 * count : count
  const row = ((round % cycle) + cycle) % cycle
  const shift = row % count
  const mirrored = row >= count
  const order: T[] = []
  for (let position = 0; position < count; position++) {
    const at = mirrored ? count - 1 - position : position
    // The base sequence: 0, 1, n-1, 2, n-2, …
    const base = at === 0 ? 0 : at % 2 ? (at + 1) / 2 : count - at / 2
    order.push(items[(base + shift) % count]!)
  }
  return order
}

/** The kernel case whose ratio is the growth target: the kernel variants measured among themselves, before any peer. */
export const growthCase = 'growth N=1000 / N=10, kernel variants only'
/** The kernel suite's per-step cases: interleaved with the peers, and the kernel variants alone before any peer is loaded. */
export const kernelCase = 'in-memory, one tool call per step'
export const kernelOnlyCase = 'in-memory, kernel variants only (no peer loaded)'

export interface Variant {
  name: string
  /** One measured operation; it must assert its own result (throw when the work was not done). */
  run(): Promise<void> | void
  /** Untimed, before each sample (e.g. a fresh pre-filled session). */
  before?(): Promise<void> | void
  /** Untimed, after each sample. */
  after?(): Promise<void> | void
}

export interface MeasureOptions {
  /** Recorded rounds; each round runs every variant once (one sample), in the order `roundOrder` gives it. */
  rounds: number
  /** Unrecorded rounds first. */
  warmup: number
  /** Units of work per operation (steps, chunks, ops), so figures are per unit. */
  unitsPerRun: number
  /** Operations per sample, to keep tiny operations above timer resolution. */
  runsPerSample?: number
  /**
   * A sample runs at least this long (more operations than `runsPerSample` if needed). A sample of a fraction of
   * a millisecond is at the mercy of whatever its predecessor left behind (a garbage collection it started, often
   * a few milliseconds long); a sample long enough weighs such a one-off cost against its own work only.
   */
  minSampleMs?: number
}

export interface Samples {
  /** Wall time per unit, µs. */
  wall: number[]
  /** CPU time (user + system) per unit, µs. */
  cpu: number[]
}

/** Runs the variants interleaved: round r runs them in the order `roundOrder(variants, r)`. Returns per-unit samples per variant. */
export async function measure(variants: readonly Variant[], options: MeasureOptions): Promise<Map<string, Samples>> {
  const samples = new Map<string, Samples>(variants.map((variant) => [variant.name, { wall: [], cpu: [] }]))
  const runsPerSample = options.runsPerSample ?? 1
  const minSampleMs = options.minSampleMs ?? 0
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    for (const variant of roundOrder(variants, round)) {
      await variant.before?.()
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      let runs = 0
      do {
        await variant.run()
        runs++
      } while (runs < runsPerSample || performance.now() - start < minSampleMs)
      const units = runs * options.unitsPerRun
      const wall = ((performance.now() - start) * 1000) / units
      const cpuUsed = process.cpuUsage(cpuStart)
      await variant.after?.()
      if (round < options.warmup) continue
      const target = samples.get(variant.name)!
      target.wall.push(wall)
      target.cpu.push((cpuUsed.user + cpuUsed.system) / units)
    }
  }
  return samples
}

let profilerSession: Session | undefined

async function profiler(): Promise<Session> {
  if (!profilerSession) {
    profilerSession = new Session()
    profilerSession.connect()
    await profilerSession.post('HeapProfiler.enable')
  }
  return profilerSession
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber?: number }
  selfSize: number
  children: SamplingNode[]
}

function totalSelfSize(node: SamplingNode): number {
  let total = node.selfSize
  for (const child of node.children) total += totalSelfSize(child)
  return total
}

/** The sampling heap profile of `repeat` runs of `operation`, counting what GCs already collected. */
async function allocationProfile(operation: () => Promise<void> | void, repeat: number, samplingInterval: number): Promise<SamplingNode> {
  const session = await profiler()
  await session.post('HeapProfiler.startSampling', {
    samplingInterval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never)
  // An inspector reply does not keep the event loop alive: for a large profile (N = 1,000 steps) the loop could
  // empty while it is being built, and the process ended with exit code 13 (an unsettled top-level await).
  const keepAlive = setInterval(() => {}, 1_000)
  let head: SamplingNode | undefined
  try {
    for (let index = 0; index < repeat; index++) await operation()
  } finally {
    try {
      head = ((await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } }).profile.head
    } finally {
      clearInterval(keepAlive)
    }
  }
  return head
}

/**
 * Bytes allocated per unit, measured with V8's sampling heap profiler including objects that minor and major
 * GCs already collected (Node 20 has no `total_allocated_bytes`): an unbiased estimate of everything allocated
 * while `operation` ran, whether it survived or not. One sample per call of `repeat` operations.
 */
export async function allocatedPerUnit(
  operation: () => Promise<void> | void,
  options: { repeat: number; unitsPerRun: number; samplingInterval?: number },
): Promise<number> {
  const head = await allocationProfile(operation, options.repeat, options.samplingInterval ?? 512)
  return totalSelfSize(head) / (options.repeat * options.unitsPerRun)
}

/** Names the area a stack frame belongs to, or undefined when the frame is not in any. */
export type AllocationArea = (frame: { functionName: string; url: string }) => string | undefined

/**
 * Bytes allocated per unit, split by area: an allocation belongs to the area of the innermost frame on its stack
 * that is in one (a helper such as a deep copy counts for the store that called it); the rest goes to `rest`.
 * Stacks are complete for synchronous calls; after an `await` a frame's callers are gone, so only code that runs
 * synchronously inside an area's frames is attributed to it.
 */
export async function allocatedByArea(
  operation: () => Promise<void> | void,
  options: { repeat: number; unitsPerRun: number; samplingInterval?: number; area: AllocationArea; rest: string },
): Promise<Map<string, number>> {
  const head = await allocationProfile(operation, options.repeat, options.samplingInterval ?? 512)
  const bytes = new Map<string, number>()
  const walk = (node: SamplingNode, inherited: string): void => {
    const area = options.area(node.callFrame) ?? inherited
    if (node.selfSize) bytes.set(area, (bytes.get(area) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child, area)
  }
  walk(head, options.rest)
  const units = options.repeat * options.unitsPerRun
  return new Map([...bytes].map(([area, total]) => [area, total / units]))
}

/** One allocation site of a profile: a function (name, file, line) and the bytes it allocated itself, per unit. */
export interface AllocationSite {
  functionName: string
  url: string
  line: number
  bytes: number
}

/**
 * Bytes allocated per unit by each function itself (not its callees), largest first: where a variant's allocation
 * goes, site by site. Run node with `--no-turbo-inlining` to credit each function with its own allocations (an
 * inlined function's count for the function it was inlined into).
 */
export async function allocationSites(
  operation: () => Promise<void> | void,
  options: { repeat: number; unitsPerRun: number; samplingInterval?: number },
): Promise<AllocationSite[]> {
  const head = await allocationProfile(operation, options.repeat, options.samplingInterval ?? 512)
  const sites = new Map<string, AllocationSite>()
  const units = options.repeat * options.unitsPerRun
  const walk = (node: SamplingNode): void => {
    if (node.selfSize) {
      const { functionName, url, lineNumber = -1 } = node.callFrame
      const key = `${functionName}\u0000${url}\u0000${lineNumber}`
      const site = sites.get(key) ?? { functionName: functionName || '(anonymous)', url, line: lineNumber + 1, bytes: 0 }
      site.bytes += node.selfSize / units
      sites.set(key, site)
    }
    for (const child of node.children) walk(child)
  }
  walk(head)
  return [...sites.values()].sort((a, b) => b.bytes - a.bytes)
}

/** Full GC (the process runs with --expose-gc), then the used heap in bytes. */
export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('[spindle/bench] run node with --expose-gc (pnpm bench does)')
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/**
 * The used heap to measure growth from, after V8 has dropped what earlier suites left: V8 flushes the bytecode
 * of functions unused for `--bytecode-old-age` (5) major GCs, so a peer framework's code, idle since its suite,
 * was freed *during* the measured runs and the growth came out negative (-321 B per finished run on
 * 2026-12-01). Seven rounds of `keepHot` (the measured operation, so its own code stays young) then a full GC
 * age that code out first.
 */
export async function baselineHeap(keepHot: () => Promise<unknown>): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('[spindle/bench] run node with --expose-gc (pnpm bench does)')
  for (let round = 0; round < 7; round++) {
    await keepHot()
    gc()
  }
  return heapAfterGc()
}

/** Collects rows and prints one markdown table per case group. */
export class Report {
  readonly rows: ResultRow[] = []
  readonly sections: string[] = []

  add(row: Omit<ResultRow, 'median' | 'min' | 'max'>, values: readonly number[] | number): ResultRow {
    const summary = typeof values === 'number' ? { median: values, min: values, max: values } : summarize(values)
    const full = { ...row, ...summary }
    this.rows.push(full)
    return full
  }

  /** Prints (and keeps for BENCHMARKS.md) a markdown table. */
  table(title: string, header: string[], lines: Array<Array<string | number>>, note?: string): void {
    const text = [
      `### ${title}`,
      '',
      `| ${header.join(' | ')} |`,
      `| ${header.map((_, index) => (lines.some((line) => typeof line[index] === 'string' && !/^[-\d.,]+ \(/.test(line[index] as string) && line[index] !== '—') ? '---' : '---:')).join(' | ')} |`,
      ...lines.map((line) => `| ${line.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)).join(' | ')} |`),
      ...(note ? ['', note] : []),
      '',
    ].join('\n')
    this.sections.push(text)
    process.stdout.write(`${text}\n`)
  }

  note(text: string): void {
    this.sections.push(`${text}\n`)
    process.stdout.write(`${text}\n\n`)
  }
}

/** Three significant digits, thousands separated. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Number.isInteger(value) && Math.abs(value) >= 1) return value.toLocaleString('en-US')
  const magnitude = Math.abs(value)
  const digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** `median (min–max)` for a table cell. */
export function cell(summary: Summary): string {
  return `${formatNumber(summary.median)} (${formatNumber(summary.min)}–${formatNumber(summary.max)})`
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`[spindle/bench] assertion failed: ${message}`)
}

export interface BenchConfig {
  quick: boolean
}

// The kernel suite's after-GC figures (issue 42): the cost of a run started right after a full garbage collection,
// next to the same run's steady cost, for the bare loop, Spindle and every peer. A server whose runs are seconds
// apart meets a major collection between runs; V8 then drops what no live object holds (the hidden classes of
// per-run objects, the optimized code compiled against them), and the next run pays for it.
import { cell, check, type Report, type ResultRow, roundOrder } from '../harness.js'

/** A kernel variant as the kernel suite defines it (asserts its own run). */
export interface AfterGcVariant {
  name: string
  peer: boolean
  run(steps: number): Promise<unknown>
  fresh?(steps: number): void
}

/** The case of the after-GC rows in the report. */
export const afterGcCase = 'in-memory, one run right after a full GC vs steady'

const steadyMetric = 'wall per step, steady'
const afterGcMetric = 'wall per step, right after a full GC'
const afterGcCpuMetric = 'cpu per step, right after a full GC'
const ratioMetric = 'after GC / steady'

/** Which peer variants a Spindle variant is compared with after a GC (the same API shape: a run, or a stream). */
const peersOf: Record<string, string[]> = {
  'spindle run': ['ai-sdk generateText', 'openai-agents run'],
  'spindle stream': ['ai-sdk streamText', 'openai-agents stream'],
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc
  check(gc, 'the after-GC rows need node --expose-gc (pnpm bench passes it)')
  gc()
}

async function timedRun(variant: AfterGcVariant, steps: number): Promise<{ wall: number; cpu: number }> {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  await variant.run(steps)
  const wall = ((performance.now() - start) * 1000) / steps
  const cpu = process.cpuUsage(cpuStart)
  return { wall, cpu: (cpu.user + cpu.system) / steps }
}

/**
 * Measures every variant at N = 1, 10 and 100, interleaved in the harness's balanced order, each on one runtime per
 * size (a server's: built once, reused for every run). Each round, for each variant: one untimed run and one timed run
 * (steady: the variant's own code and data are hot), then a full `gc()` (untimed) and one timed run (after GC).
 */
export async function afterGcRounds(variants: AfterGcVariant[], quick: boolean, report: Report): Promise<void> {
  const lines: Array<Array<string | number>> = []
  const medians = new Map<string, number>()
  for (const steps of [1, 10, 100]) {
    // One run per sample: at N = 1 a run is a fraction of a millisecond, hence more rounds for the median.
    const rounds = quick ? (steps >= 100 ? 2 : 3) : steps === 1 ? 21 : steps === 10 ? 15 : 9
    const samples = new Map(variants.map((variant) => [variant.name, { steady: [] as number[], afterGc: [] as number[], afterGcCpu: [] as number[] }]))
    for (const variant of variants) variant.fresh?.(steps)
    for (let round = -1; round < rounds; round++) {
      // Round -1 is a warm-up round (not recorded): the first run of a size compiles what the sizes before did not use.
      for (const variant of roundOrder(variants, round + 1)) {
        await variant.run(steps)
        const steady = await timedRun(variant, steps)
        collectGarbage()
        const afterGc = await timedRun(variant, steps)
        if (round < 0) continue
        const target = samples.get(variant.name)!
        target.steady.push(steady.wall)
        target.afterGc.push(afterGc.wall)
        target.afterGcCpu.push(afterGc.cpu)
      }
    }
    for (const variant of variants) {
      const { steady, afterGc, afterGcCpu } = samples.get(variant.name)!
      const base = { suite: 'kernel', case: afterGcCase, variant: variant.name, n: steps }
      const steadyRow = report.add({ ...base, metric: steadyMetric, unit: 'µs' }, steady)
      const afterGcRow = report.add({ ...base, metric: afterGcMetric, unit: 'µs' }, afterGc)
      const cpuRow = report.add({ ...base, metric: afterGcCpuMetric, unit: 'µs' }, afterGcCpu)
      const ratio = afterGcRow.median / steadyRow.median
      report.add({ ...base, metric: ratioMetric, unit: 'x' }, ratio)
      medians.set(`${variant.name}@${steps}`, afterGcRow.median)
      lines.push([variant.name, steps, cell(steadyRow), cell(afterGcRow), ratio, cell(cpuRow)])
    }
    for (const [spindle, peers] of Object.entries(peersOf)) {
      const own = medians.get(`${spindle}@${steps}`)
      for (const peer of peers) {
        const theirs = medians.get(`${peer}@${steps}`)
        if (own === undefined || theirs === undefined) continue
        report.add({ suite: 'kernel', case: afterGcCase, variant: `${spindle} / ${peer}`, n: steps, metric: 'after GC ratio', unit: 'x' }, own / theirs)
      }
    }
  }
  report.table(
    'Kernel: a run right after a full GC vs steady (in-memory stores, wall per step, median (min–max); peers loaded)',
    ['variant', 'N', 'steady µs/step', 'after GC µs/step', 'after GC / steady', 'after GC CPU µs/step'],
    lines,
    'Measured after the peers are loaded and warm (every variant under the same conditions: async_hooks on, see the tables above), in rounds of the balanced order. Each variant runs on one runtime per size, built before the rounds and reused for every run, as a server’s is (its in-memory stores keep the earlier runs). Each round, for each variant: one untimed run, one timed run (steady), then a full `gc()` (untimed) and one timed run (after GC). One run per sample: the after-GC cost is a one-off per run, which a sample of several runs would dilute. A full GC drops the hidden classes (V8 maps) no live object holds — with them the optimized code compiled against them (`--trace-deopt`: "weak objects") and the inline caches that saw them — and leaves the caches of the CPU cold; the bare loop, with no framework, shows what the collection alone costs a run. CPU = user + system time of the process, so it includes the compiler threads re-optimizing.',
  )
}

/** The after-GC target lines of BENCHMARKS.md: [target, figure, unit, met]. */
export function afterGcTargets(rows: ResultRow[]): Array<[string, number | undefined, string, (value: number) => boolean]> {
  const median = (variant: string, n: number, metric: string) =>
    rows.find((row) => row.suite === 'kernel' && row.case === afterGcCase && row.variant === variant && row.n === n && row.metric === metric)?.median
  const lines: Array<[string, number | undefined, string, (value: number) => boolean]> = []
  for (const spindle of Object.keys(peersOf)) {
    for (const n of [10, 100]) lines.push([`kernel ${spindle}, N=${n}: after GC ≤ 2× steady`, median(spindle, n, ratioMetric), '×', (value) => value <= 2])
    for (const peer of peersOf[spindle]!)
      for (const n of [1, 10, 100])
        lines.push([
          `kernel ${spindle}, N=${n}: after GC faster than ${peer} after GC (Spindle / peer)`,
          median(`${spindle} / ${peer}`, n, 'after GC ratio'),
          '×',
          (value) => value < 1,
        ])
  }
  return lines
}

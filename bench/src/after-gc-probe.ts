// A probe for issue 42's first item: warms a runtime, then alternates a full gc() and one measured run, printing
// markers so that the output of `node --expose-gc --trace-deopt --import tsx src/after-gc-probe.ts` splits per run.
// Usage: node --expose-gc [--trace-deopt] --import tsx src/after-gc-probe.ts [steps] [rounds] [run|stream|bare]
// IN_FLIGHT=1 keeps one Spindle run in flight throughout (its objects keep every per-run map alive); SETTLE_MS waits
// after the collection.
import { withRunInFlight } from './suites/kernel.js'
import { bareLoop, memoryRuntime, spindleRun, spindleStream } from './workload.js'

const steps = Number(process.argv[2] ?? 10)
const rounds = Number(process.argv[3] ?? 5)
const variant = process.argv[4] ?? 'run'
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')
const collect = gc
const settleMs = Number(process.env.SETTLE_MS ?? 0)

// One runtime for every run, as a server's (FRESH=1: a new one per run).
let runtime = memoryRuntime(steps)
const once = async () => {
  if (process.env.FRESH) runtime = memoryRuntime(steps)
  if (variant === 'bare') await bareLoop(steps)
  else if (variant === 'stream') await spindleStream(runtime, steps)
  else await spindleRun(runtime, steps)
}

const steady: number[] = []
const afterGc: number[] = []
async function probe(): Promise<void> {
  const until = performance.now() + 1_500
  while (performance.now() < until) await once()
  for (let round = 0; round < rounds; round++) {
    // Steady: runs back to back, the last one timed.
    for (let index = 0; index < 20; index++) await once()
    let start = performance.now()
    await once()
    steady.push(((performance.now() - start) * 1000) / steps)
    process.stdout.write(`=== gc ${round}\n`)
    collect()
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs))
    process.stdout.write(`=== measured run ${round}\n`)
    start = performance.now()
    await once()
    afterGc.push(((performance.now() - start) * 1000) / steps)
    process.stdout.write(`=== end ${round}\n`)
  }
}

if (process.env.IN_FLIGHT) await withRunInFlight(probe)
else await probe()
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
process.stdout.write(`steady ${median(steady).toFixed(1)} µs/step, after gc ${median(afterGc).toFixed(1)} µs/step (N=${steps}, ${variant})\n`)

// `pnpm --filter @spindle/bench profile:alloc [run|stream|bare] [N] [top]`: where one kernel variant's allocation
// per step goes, site by site (function, file, line; each function's own allocations), with the bench's workload
// and in-memory stores, one run in flight as in the kernel suite. Runs without inlining (see the script), so the
// total is a little above the kernel table's; the sites are what to cut.
import { allocationSites } from './harness.js'
import { spindleVariants, withRunInFlight } from './suites/kernel.js'
import { bareLoop } from './workload.js'

const [mode = 'run', stepsArgument = '100', topArgument = '40'] = process.argv.slice(2)
const steps = Number(stepsArgument)
const top = Number(topArgument)
if (!['run', 'stream', 'bare'].includes(mode) || !Number.isInteger(steps) || steps < 1 || !Number.isInteger(top) || top < 1) {
  throw new Error('[spindle/bench] usage: profile:alloc [run|stream|bare] [N ≥ 1] [top ≥ 1]')
}
const variant = mode === 'bare' ? { run: bareLoop, fresh: undefined } : spindleVariants().find((candidate) => candidate.name === `spindle ${mode}`)!
// Warm: V8 compiles the hot functions first (a cold profile counts the interpreter's allocations).
for (let index = 0; index < Math.max(20, Math.ceil(3_000 / steps)); index++) {
  variant.fresh?.(steps)
  await variant.run(steps)
}
variant.fresh?.(steps)
const repeat = Math.max(3, Math.ceil(2_000 / steps))
const sites = await withRunInFlight(() => allocationSites(() => variant.run(steps).then(() => {}), { repeat, unitsPerRun: steps, samplingInterval: 64 }))
const total = sites.reduce((sum, site) => sum + site.bytes, 0)
const where = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*\/(packages|bench|node_modules)\//, '$1/') || '(native)'
process.stdout.write(
  `${mode} N=${steps}: ${(total / 1024).toFixed(2)} KB/step (${repeat} runs, 64-byte sampling)\n\n| B/step | share | function | where |\n| ---: | ---: | --- | --- |\n`,
)
for (const site of sites.slice(0, top)) {
  process.stdout.write(
    `| ${site.bytes.toFixed(0)} | ${((site.bytes / total) * 100).toFixed(1)}% | ${site.functionName} | ${where(site.url)}${site.line > 0 ? `:${site.line}` : ''} |\n`,
  )
}
process.exit(0)

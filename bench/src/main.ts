// `pnpm bench [--quick] [--suite kernel,durable,…]`: runs the suites in one process, prints markdown tables,
// writes bench/results/latest.json (and, for a full run, BENCHMARKS.md at the repository root).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Report } from './harness.js'
import { benchmarksMarkdown } from './benchmarks-md.js'
import { durableSuite } from './suites/durable.js'
import { eventsSuite } from './suites/events.js'
import { kernelSuite } from './suites/kernel.js'
import { observabilitySuite } from './suites/observability.js'
import { playgroundSuite } from './suites/playground.js'
import { providersSuite } from './suites/providers.js'
import { runtimeStoreSuite } from './suites/runtime-store.js'
import { scaleSuite } from './suites/scale.js'
import { streamingSuite } from './suites/streaming.js'
import { setTracingDisabled } from '@openai/agents'

const suites = {
  kernel: kernelSuite,
  durable: durableSuite,
  streaming: streamingSuite,
  events: eventsSuite,
  'runtime-store': runtimeStoreSuite,
  scale: scaleSuite,
  providers: providersSuite,
  observability: observabilitySuite,
  playground: playgroundSuite,
} as const

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const suiteArgument = argv.find((argument) => argument.startsWith('--suite'))
const selectedNames = suiteArgument ? (suiteArgument.includes('=') ? suiteArgument.split('=')[1]! : argv[argv.indexOf(suiteArgument) + 1]!).split(',') : Object.keys(suites)
for (const name of selectedNames) {
  if (!(name in suites)) throw new Error(`[spindle/bench] unknown suite "${name}"; suites: ${Object.keys(suites).join(', ')}`)
}

// The OpenAI Agents SDK traces by default and would try to export; no network here, so tracing is off for it.
setTracingDisabled(true)

const report = new Report()
const started = performance.now()
process.stdout.write(`# Spindle benchmarks${quick ? ' (--quick)' : ''}\n\n`)
for (const name of selectedNames) {
  const suiteStarted = performance.now()
  await suites[name as keyof typeof suites]({ quick }, report)
  process.stderr.write(`[spindle/bench] ${name}: ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s\n`)
}
const seconds = (performance.now() - started) / 1000
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
mkdirSync(join(root, 'results'), { recursive: true })
writeFileSync(join(root, 'results', quick ? 'quick.json' : 'latest.json'), `${JSON.stringify(report.rows, null, 2)}\n`)
if (!quick && selectedNames.length === Object.keys(suites).length) {
  writeFileSync(join(root, '..', 'BENCHMARKS.md'), benchmarksMarkdown(report, seconds))
}
process.stderr.write(`[spindle/bench] done in ${seconds.toFixed(1)} s\n`)
process.exit(0)

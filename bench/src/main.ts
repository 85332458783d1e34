// `pnpm bench [--quick] [--suite kernel,durable,…]`: runs the suites in one process, prints markdown tables,
// writes bench/results/latest.json and BENCHMARKS.md for a full run (quick.json or partial.json otherwise).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchConfig, Report } from './harness.js'
import { benchmarksMarkdown } from './benchmarks-md.js'

type Suite = (config: BenchConfig, report: Report) => Promise<void>

// Each suite's modules are loaded when it starts, not all up front: the playground's and the providers' modules
// alone hold ~50 MB of heap, and every major GC of the kernel suite would have marked them (measured: 42 MB after
// the kernel suite's imports, 93 MB after all of them).
// They run in this order. The streaming and events suites come first, in a process where no peer framework has run
// yet: a run of the OpenAI Agents SDK turns on async_hooks for the rest of the process (its AsyncLocalStorage), and
// every await then costs about 3x as much (31 -> 106 ns, measured 2026-12-03). The kernel suite loads its peers after
// its kernel-only measurements.
const suites: Record<string, () => Promise<Suite>> = {
  streaming: async () => (await import('./suites/streaming.js')).streamingSuite,
  events: async () => (await import('./suites/events.js')).eventsSuite,
  // Before any peer too: its figures are per chunk, where a slower await would show most.
  'ai-sdk': async () => (await import('./suites/ai-sdk.js')).aiSdkSuite,
  kernel: async () => (await import('./suites/kernel.js')).kernelSuite,
  durable: async () => (await import('./suites/durable.js')).durableSuite,
  service: async () => (await import('./suites/service.js')).serviceSuite,
  'cold-session': async () => (await import('./suites/cold-session.js')).coldSessionSuite,
  context: async () => (await import('./suites/context.js')).contextSuite,
  postgres: async () => (await import('./suites/postgres.js')).postgresSuite,
  'postgres-workers': async () => (await import('./suites/postgres-workers.js')).postgresWorkersSuite,
  'runtime-store': async () => (await import('./suites/runtime-store.js')).runtimeStoreSuite,
  scale: async () => (await import('./suites/scale.js')).scaleSuite,
  providers: async () => (await import('./suites/providers.js')).providersSuite,
  observability: async () => (await import('./suites/observability.js')).observabilitySuite,
  playground: async () => (await import('./suites/playground.js')).playgroundSuite,
}

const argv = process.argv.slice(2)
const quick = argv.includes('--quick')
const suiteArgument = argv.find((argument) => argument.startsWith('--suite'))
const selectedNames = suiteArgument
  ? (suiteArgument.includes('=') ? suiteArgument.split('=')[1]! : argv[argv.indexOf(suiteArgument) + 1]!).split(',')
  : Object.keys(suites)
for (const name of selectedNames) {
  if (!(name in suites)) throw new Error(`[spindle/bench] unknown suite "${name}"; suites: ${Object.keys(suites).join(', ')}`)
}

const report = new Report()
const started = performance.now()
process.stdout.write(`# Spindle benchmarks${quick ? ' (--quick)' : ''}\n\n`)
for (const name of selectedNames) {
  const suiteStarted = performance.now()
  const suite = await suites[name]!()
  await suite({ quick }, report)
  process.stderr.write(`[spindle/bench] ${name}: ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s\n`)
}
const seconds = (performance.now() - started) / 1000
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
mkdirSync(join(root, 'results'), { recursive: true })
// Only a full run replaces the committed figures: a quick or a partial run (`--suite`) writes a file of its own.
const complete = selectedNames.length === Object.keys(suites).length
writeFileSync(join(root, 'results', quick ? 'quick.json' : complete ? 'latest.json' : 'partial.json'), `${JSON.stringify(report.rows, null, 2)}\n`)
if (!quick && complete) {
  writeFileSync(join(root, '..', 'BENCHMARKS.md'), benchmarksMarkdown(report, seconds))
}
process.stderr.write(`[spindle/bench] done in ${seconds.toFixed(1)} s\n`)
process.exit(0)

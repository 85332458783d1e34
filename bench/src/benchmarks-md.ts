// Renders BENCHMARKS.md: the machine, the versions, the command, the targets and every table of the last full run.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, totalmem, loadavg } from 'node:os'
import { formatNumber, growthCase, kernelCase, kernelOnlyCase, type Report, type ResultRow } from './harness.js'
import { afterGcTargets } from './suites/kernel-after-gc.js'

const requireHere = createRequire(import.meta.url)

// Packages the bench reaches through a Spindle package (better-sqlite3 is @spindle/store-sqlite's dependency).
const through: Record<string, string> = { 'better-sqlite3': '@spindle/store-sqlite' }

function version(name: string): string {
  const owner = through[name]
  const require = owner ? createRequire(requireHere.resolve(owner)) : requireHere
  try {
    const path = require.resolve(`${name}/package.json`)
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
  } catch {
    try {
      // Packages whose exports hide package.json: walk up from the entry.
      let directory = require.resolve(name)
      for (let depth = 0; depth < 6; depth++) {
        directory = directory.slice(0, directory.lastIndexOf('/'))
        try {
          const json = JSON.parse(readFileSync(`${directory}/package.json`, 'utf8')) as { name?: string; version: string }
          if (json.name === name) return json.version
        } catch {}
      }
    } catch {}
    return 'not installed'
  }
}

function find(rows: ResultRow[], suite: string, variant: string, n: number, metric: string): ResultRow | undefined {
  return rows.find((row) => row.suite === suite && row.variant === variant && row.n === n && row.metric === metric)
}

function findIn(rows: ResultRow[], suite: string, testCase: string, variant: string, n: number, metric: string): ResultRow | undefined {
  return rows.find((row) => row.suite === suite && row.case === testCase && row.variant === variant && row.n === n && row.metric === metric)
}

function targets(rows: ResultRow[]): string[] {
  const lines = ['| target | figure (median) | met |', '| --- | ---: | :---: |']
  const line = (target: string, value: number | undefined, unit: string, met: (value: number) => boolean) =>
    lines.push(`| ${target} | ${value === undefined ? 'n/a' : `${formatNumber(value)} ${unit}`} | ${value === undefined ? '—' : met(value) ? 'yes' : 'no'} |`)
  for (const mode of ['spindle run', 'spindle stream']) {
    for (const n of [10, 100, 1_000]) {
      line(
        `kernel ${mode}, N=${n}: ≤ 25 µs/step (no peer loaded)`,
        findIn(rows, 'kernel', kernelOnlyCase, mode, n, 'wall per step')?.median,
        'µs',
        (value) => value <= 25,
      )
      line(
        `kernel ${mode}, N=${n}: ≤ 25 µs/step (interleaved with the peers)`,
        findIn(rows, 'kernel', kernelCase, mode, n, 'wall per step')?.median,
        'µs',
        (value) => value <= 25,
      )
    }
    line(
      `kernel ${mode}: N=1000 / N=10 ≤ 1.3 (kernel variants only)`,
      rows.find((row) => row.suite === 'kernel' && row.case === growthCase && row.variant === mode)?.median,
      '×',
      (value) => value <= 1.3,
    )
    for (const n of [10, 100, 1_000])
      line(`kernel ${mode}, N=${n}: ≤ 10 KB allocated/step`, find(rows, 'kernel', mode, n, 'allocated per step')?.median, 'KB', (value) => value <= 10)
  }
  for (const [target, value, unit, met] of afterGcTargets(rows)) line(target, value, unit, met)
  line(
    'kernel: no retained growth (SQLite stores, JS heap per run)',
    rows.find((row) => row.suite === 'kernel' && row.variant === 'spindle run, SQLite stores')?.median,
    'B/run',
    (value) => value < 512,
  )
  for (const history of [10, 1_000, 10_000]) {
    line(
      `durable SQLite (warm), ${history} messages: ≤ 150 µs/step`,
      find(rows, 'durable', 'spindle SQLite (warm)', history, 'wall per step')?.median,
      'µs',
      (value) => value <= 150,
    )
  }
  const flat10 = find(rows, 'durable', 'spindle SQLite (warm)', 10, 'wall per step')?.median
  const flat10k = find(rows, 'durable', 'spindle SQLite (warm)', 10_000, 'wall per step')?.median
  line('durable SQLite (warm): flat, 10,000 / 10 messages ≤ 1.3', flat10 && flat10k ? flat10k / flat10 : undefined, '×', (value) => value <= 1.3)
  for (const [store, variant] of [
    ['SQLite', 'spindle SQLite (cold)'],
    ['in-memory', 'spindle in-memory (cold)'],
  ])
    for (const history of [1_000, 10_000])
      line(
        `cold session ≤ 1.5× bare reload, ${history.toLocaleString('en-US')} messages, ${store}`,
        find(rows, 'cold-session', variant, history, 'ratio to bare reload')?.median,
        '×',
        (value) => value <= 1.5,
      )
  line(
    'streaming: ≤ 1 µs/chunk over the bare stream',
    rows.find((row) => row.suite === 'streaming' && row.variant === 'spindle stream (events drained)' && row.metric.startsWith('overhead'))?.median,
    'µs',
    (value) => value <= 1,
  )
  line(
    'ai-sdk: fromAiSdk ≤ 1 µs/chunk over the AI SDK model’s own stream',
    rows.find((row) => row.suite === 'ai-sdk' && row.variant === 'fromAiSdk stream' && row.metric === 'overhead per chunk over the AI SDK stream')?.median,
    'µs',
    (value) => value <= 1,
  )
  const noSdk = find(rows, 'observability', 'otelPlugin, no SDK registered', 100, 'cpu per step')
  const redacted = find(rows, 'observability', 'default (redaction on)', 100, 'cpu per step')
  // No overhead beyond noise: the no-SDK median is not above the default configuration's max over the same
  // interleaved rounds. One-sided: a median below the default's min (the plugin cannot remove work) is the shared
  // machine's noise, and was reported as a miss by the two-sided check this replaced (-12.3 µs/step on 2026-12-01).
  line(
    'observability: otelPlugin with no SDK, N=100, no overhead beyond noise (CPU/step median not above the default kernel’s max)',
    noSdk && redacted ? noSdk.median - redacted.median : undefined,
    'µs/step',
    () => noSdk!.median <= redacted!.max,
  )
  const postgresWall = (variant: string) => find(rows, 'postgres', variant, 10, 'wall per step')?.median
  const spindlePostgres = postgresWall('spindle PostgreSQL (warm)')
  const langgraphPostgres = postgresWall('langgraph PostgresSaver')
  line('durable PostgreSQL (warm): ≤ 1 ms/step (default durability)', spindlePostgres, 'µs', (value) => value <= 1_000)
  line(
    'durable PostgreSQL: ahead of LangGraph’s PostgreSQL checkpointer (its µs/step ÷ Spindle’s)',
    spindlePostgres && langgraphPostgres ? langgraphPostgres / spindlePostgres : undefined,
    '×',
    (value) => value > 1,
  )
  line(
    'playground: page load + first streamed token (demo model, warm) < 300 ms',
    rows.find((row) => row.suite === 'playground' && row.variant === 'warm' && row.metric === 'page load + first token')?.median,
    'ms',
    (value) => value < 300,
  )
  const service = (variant: string, metric: string) =>
    rows.find((row) => row.suite === 'service' && row.variant.startsWith(variant) && row.metric === metric)?.median
  line(
    'service: Spindle + SQLite (durable) capacity ≥ the AI SDK’s (persisting nothing), same run',
    service('spindle / AI SDK', 'capacity ratio'),
    '×',
    (value) => value >= 1,
  )
  const spindleP99 = service('spindle', 'p99 at 90 % of capacity')
  const aiSdkP99 = service('AI SDK', 'p99 at 90 % of capacity')
  line(
    'service: Spindle’s p99 at 90 % of its capacity < the AI SDK’s at 90 % of its own (Spindle / AI SDK)',
    spindleP99 !== undefined && aiSdkP99 !== undefined ? spindleP99 / aiSdkP99 : undefined,
    '×',
    (value) => value < 1,
  )
  return lines
}

/**
 * The host's speed in this run, from the bare loop (no framework at all): the wall-time targets are absolute, and
 * this shared machine is up to 2× slower on some days, for every variant alike (measured 2026-12-01 and 12-02).
 */
function hostSpeed(rows: ResultRow[]): string {
  // From the kernel variants' own rounds when the run has them (no peer's async_hooks), else the interleaved ones.
  const at100 = (variant: string) =>
    (findIn(rows, 'kernel', kernelOnlyCase, variant, 100, 'wall per step') ?? findIn(rows, 'kernel', kernelCase, variant, 100, 'wall per step'))?.median
  const bare = at100('bare loop')
  const spindle = at100('spindle run')
  if (bare === undefined || spindle === undefined) return '- Host speed: no kernel figures in this run.'
  return `- Host speed in this run: the bare loop (no framework) took ${formatNumber(bare)} µs/step at N = 100 and \`spindle run\` ${formatNumber(spindle)} µs/step (${formatNumber(spindle / bare)}× the bare loop). The µs targets are absolute, and this shared host is up to 2× slower on some days for every variant alike: read the wall times next to the bare loop’s.`
}

export function benchmarksMarkdown(report: Report, seconds: number): string {
  const cpu = cpus()[0]
  const packages = [
    '@spindle/core',
    'ai',
    '@langchain/core',
    '@langchain/langgraph',
    '@langchain/langgraph-checkpoint-sqlite',
    '@openai/agents',
    'openai',
    '@anthropic-ai/sdk',
    'zod',
    'better-sqlite3',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-base',
  ]
  return [
    '# Benchmarks',
    '',
    '<!-- Generated by `pnpm bench` (bench/src/benchmarks-md.ts); edit the generator, not this file. -->',
    '',
    'Reproduce: `pnpm install && pnpm bench` (all suites, about 10 minutes; `pnpm bench --quick` is a < 1 minute smoke run that writes `bench/results/quick.json` only; `pnpm bench --suite kernel,durable` runs some suites and writes `bench/results/partial.json`). Raw figures: `bench/results/latest.json` (`{ suite, case, variant, n, metric, unit, median, min, max }`). Where a kernel variant’s allocation goes, site by site: `pnpm --filter @spindle/bench profile:alloc run 100` (or `stream`, `bare`; after `pnpm build`).',
    '',
    '## Method',
    '',
    '- One process (`node --expose-gc`) on the built packages (`pnpm bench` builds them first: the `dist/` JavaScript that users run, not the TypeScript sources through tsx, which adds a `__name` call to every closure). Variants of a case are interleaved: each round runs every variant once, in the order of one row of a Williams design (a balanced Latin square: over the rounds every variant takes every position, and directly follows every other variant, equally often, so no variant always pays for the same neighbour’s garbage), after warm-up rounds (a kernel sample lasts at least 10 ms, as many runs as that takes, so that a collection left by the sample before it weighs against 10 ms of work, not a fraction of a millisecond; the kernel suite first runs every variant for 1.5 s, so V8 has compiled each library before any sample; each suite loads its modules when it starts, and the streaming and events suites run first, before any peer framework is loaded: a run of the OpenAI Agents SDK turns on async_hooks for the rest of the process (its AsyncLocalStorage), and every `await` of every variant then costs about 3× as much (measured 2026-12-03: 31 ns per `await` before, 106 ns after; importing the peers, or a LangGraph or AI SDK run, changed nothing), so the kernel suite loads the peers only after its kernel-only measurements); tables show the median and the min–max over the recorded rounds.',
    '- Every run is asserted — model calls, tool executions, final text, event counts — so a variant that skipped work fails the bench instead of looking fast.',
    '- Workload: a scripted in-process model asks for one `add` tool call (zod schema `{ a: number, b: number }`) per step, then answers `done`. A step = one model call with one tool call; per-step figures divide the run by N. Every framework gets the same script through its own mock-model mechanism (Spindle and the bare loop: `mockModel`; AI SDK: a plain `LanguageModelV3` object (`ai/test`’s `MockLanguageModelV3` would keep every call’s options); LangGraph: a `BaseChatModel` subclass returning tool calls; OpenAI Agents: a custom `Model`), the same zod schema and the same tool function.',
    '- CPU time: `process.cpuUsage()` (user + system) over the sample. Node 20 has no `v8.getHeapStatistics().total_allocated_bytes`, so allocation is measured with V8’s sampling heap profiler (`HeapProfiler.startSampling`, 512-byte interval, `includeObjectsCollectedByMinorGC/MajorGC`): an estimate of every byte allocated, collected or not. The bare loop’s and Spindle’s allocation is sampled before any peer is loaded (a peer turns on async_hooks for the rest of the process through AsyncLocalStorage, and every promise then carries their bookkeeping: +0.6–0.9 KB/step for the bare loop and Spindle alike, measured 2026-12-01) and with one Spindle run in flight, stalled in a model call: stopping a profile forces a full GC, and with no run alive V8 drops the hidden classes of the kernel’s per-run objects and deoptimizes the code built on them, so each sample after the first measured a just-collected process (14.0–14.9 KB/step at N = 100 against 11.9 for the first profile and 12.0–12.9 with a run in flight). Retained growth: over 1,000 runs after 2,000 warm-up runs, heap used after two full GCs, from a baseline taken after seven rounds of the measured operation each followed by a full GC (V8 drops bytecode left unused for five major GCs: a peer’s idle code freed during the measure made it negative).',
    '- The OpenAI Agents SDK runs with tracing disabled (`setTracingDisabled(true)`; there is no network here).',
    '',
    '## Machine',
    '',
    `- ${cpu?.model ?? 'unknown CPU'}, ${cpus().length} logical cores, ${Math.round(totalmem() / 2 ** 30)} GiB RAM; load average at the end of the run: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' / ')} (the machine is shared, so wall times are noisy; CPU times are steadier).`,
    `- Node ${process.version} (${process.platform} ${process.arch}); full run took ${seconds.toFixed(0)} s on ${new Date().toISOString().slice(0, 10)}.`,
    hostSpeed(report.rows),
    '',
    '## Versions',
    '',
    '| package | version |',
    '| --- | --- |',
    ...packages.map((name) => `| ${name} | ${version(name)} |`),
    '',
    'Peers that cannot run here: `ai@7` and `@openai/agents@0.15+` need Node 22 (`ai@7`: `engines.node >=22`; `@openai/agents-core@0.15+` depends on `openai@7`, which needs Node 22), so the last majors that run on Node 20 are used: `ai@6` and `@openai/agents@0.14`.',
    '',
    '## Targets',
    '',
    ...targets(report.rows),
    '',
    '## Results',
    '',
    ...report.sections,
  ].join('\n')
}

// Suite — observability: per-step overhead of redaction and of `otelPlugin()` on the kernel workload (in-memory
// stores, one tool call per step): redaction off with no observers, the default (redaction on), the plugin with
// no OpenTelemetry SDK registered (the API's no-op) and with an SDK tracer provider exporting to memory.
import { metrics, trace } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { type AgentEvent, AgentRuntime, createRedactor, Extensions } from '@spindle/core'
import { OtelObserver, otelPlugin } from '@spindle/otel'
import { type BenchConfig, cell, check, measure, type Report, type Variant } from '../harness.js'
import { policyFor, spindleRun } from '../workload.js'

export const observabilityVariants = {
  bare: 'redaction off, no observers',
  default: 'default (redaction on)',
  noSdk: 'otelPlugin, no SDK registered',
  sdk: 'otelPlugin + SDK (in-memory exporter)',
} as const

interface Configuration {
  name: string
  extensions(): Extensions
  /** Asserts what the configuration must have produced for `runs` runs of N steps (spans exported, or none). */
  verify(runs: number, steps: number): void
}

export async function observabilitySuite(config: BenchConfig, report: Report): Promise<void> {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const configurations: Configuration[] = [
    {
      name: observabilityVariants.bare,
      extensions: () => {
        const extensions = new Extensions()
        extensions.redactor = false
        check(extensions.observers.length === 0, 'no observers by default')
        return extensions
      },
      verify: () => {},
    },
    { name: observabilityVariants.default, extensions: () => new Extensions(), verify: () => {} },
    {
      name: observabilityVariants.noSdk,
      extensions: () => {
        check(!trace.getTracer('spindle-bench').startSpan('probe').isRecording(), 'no global OpenTelemetry SDK is registered in the bench process')
        return new Extensions().use(otelPlugin())
      },
      // The global provider is the API's no-op: nothing may reach the in-memory exporter.
      verify: () => check(exporter.getFinishedSpans().length === 0, 'no spans exported without an SDK'),
    },
    {
      name: observabilityVariants.sdk,
      extensions: () => new Extensions().use(otelPlugin({ tracerProvider })),
      // Per run: one invoke_agent span, N + 1 chat spans, N execute_tool spans.
      verify: (runs, steps) => {
        const spans = exporter.getFinishedSpans().length
        check(spans === runs * (2 * steps + 2), `${spans} spans exported for ${runs} runs of ${steps} steps, expected ${runs * (2 * steps + 2)}`)
      },
    },
  ]
  const sizes = config.quick ? [10] : [10, 100]
  const lines: Array<Array<string | number>> = []
  for (const steps of sizes) {
    const runsPerSample = config.quick ? 10 : steps === 10 ? 30 : 5
    const runtimes = new Map<string, AgentRuntime>()
    const samples = await measure(
      configurations.map<Variant>((configuration) => ({
        name: configuration.name,
        // A fresh runtime per sample, so the in-memory stores do not grow across samples.
        before: () => {
          exporter.reset()
          runtimes.set(configuration.name, new AgentRuntime(configuration.extensions(), policyFor(steps)))
        },
        run: async () => void (await spindleRun(runtimes.get(configuration.name)!, steps)),
        after: () => {
          configuration.verify(runsPerSample, steps)
          exporter.reset()
        },
      })),
      { rounds: config.quick ? 5 : 21, warmup: config.quick ? 1 : 3, unitsPerRun: steps, runsPerSample },
    )
    const baseline = new Map<string, number>()
    for (const configuration of configurations) {
      const { wall, cpu } = samples.get(configuration.name)!
      const base = { suite: 'observability', case: 'in-memory, one tool call per step', variant: configuration.name, n: steps }
      const wallRow = report.add({ ...base, metric: 'wall per step', unit: 'µs' }, wall)
      const cpuRow = report.add({ ...base, metric: 'cpu per step', unit: 'µs' }, cpu)
      if (configuration.name === observabilityVariants.bare) baseline.set('cpu', cpuRow.median)
      if (configuration.name === observabilityVariants.default) baseline.set('default', cpuRow.median)
      const overBare = cpuRow.median - baseline.get('cpu')!
      const overDefault = configuration.name === observabilityVariants.bare ? undefined : cpuRow.median - baseline.get('default')!
      if (overDefault !== undefined) report.add({ ...base, metric: 'cpu overhead vs default', unit: '%' }, (overDefault / baseline.get('default')!) * 100)
      lines.push([
        configuration.name,
        steps,
        cell(wallRow),
        cell(cpuRow),
        `${overBare >= 0 ? '+' : ''}${overBare.toFixed(2)} (${((overBare / baseline.get('cpu')!) * 100).toFixed(1)}%)`,
        overDefault === undefined
          ? '—'
          : `${overDefault >= 0 ? '+' : ''}${overDefault.toFixed(2)} (${((overDefault / baseline.get('default')!) * 100).toFixed(1)}%)`,
      ])
    }
  }
  await tracerProvider.shutdown()
  report.table(
    'Observability: per step, in-memory stores (kernel workload; median (min–max))',
    ['configuration', 'N', 'wall µs/step', 'CPU µs/step', 'CPU vs redaction off, µs/step', 'CPU vs default, µs/step'],
    lines,
    'Configurations interleaved (balanced order), each sample on a fresh runtime. The machine is shared, so end-to-end differences of a few percent are noise; the isolated table below measures the added work exactly. "No SDK registered" uses the global `@opentelemetry/api` providers (no-op); the SDK case is `BasicTracerProvider` + `SimpleSpanProcessor` + `InMemorySpanExporter` (traces only; no MeterProvider). Every run is asserted, and so is the span count (2N + 2 per run with the SDK, none without).',
  )
  await isolated(config, report)
}

/**
 * The same costs without the rest of the run: one 10-step run's events (recorded once) replayed through the
 * redactor and through the plugin's observer on the global no-op API. Exact where the end-to-end figures above
 * are noisy on a shared machine.
 */
async function isolated(config: BenchConfig, report: Report): Promise<void> {
  const steps = 10
  const recorded: AgentEvent[] = []
  const recorder = new Extensions()
  recorder.redactor = false
  recorder.addObserver({ onEvent: (event) => void recorded.push(event) })
  await spindleRun(new AgentRuntime(recorder, policyFor(steps)), steps)
  check(
    recorded.some((event) => event.type === 'run.finished'),
    'the recorded run finished',
  )
  const redactor = createRedactor()
  const observer = new OtelObserver({ tracer: trace.getTracer('spindle-bench'), meter: metrics.getMeter('spindle-bench'), captureContent: false })
  const samples = await measure(
    [
      { name: 'redactor.redactEvent, every event', run: () => void recorded.forEach((event) => redactor.redactEvent(event)) },
      {
        name: 'otelPlugin observer, no SDK, every event',
        run: () => {
          for (const event of recorded) observer.onEvent(event)
          check(observer.activeRuns === 0, 'the replayed run ended in the observer')
        },
      },
    ],
    { rounds: config.quick ? 5 : 15, warmup: 2, unitsPerRun: steps, runsPerSample: config.quick ? 200 : 2_000 },
  )
  const lines: Array<Array<string | number>> = []
  for (const [name, { cpu }] of samples) {
    const row = report.add({ suite: 'observability', case: 'events of one run replayed', variant: name, n: steps, metric: 'cpu per step', unit: 'µs' }, cpu)
    lines.push([name, recorded.length, cell(row)])
  }
  report.table(`Observability, isolated: one ${steps}-step run's events replayed (median (min–max))`, ['work', 'events per run', 'CPU µs/step'], lines)
}

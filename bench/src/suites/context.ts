// Suite 7a — context build: the cost of building a step's model request from a session's context window of
// 10 / 1,000 / 10,000 messages (the ContextPipeline alone, against the floor of copying the window into a request),
// and the per-step cost of the context-memory adapters (working memory, semantic recall) inside real runs.
import {
  AgentRuntime,
  type ContextBuildInput,
  ContextPipeline,
  ContextWindow,
  estimateTokenizer,
  Extensions,
  hashEmbedding,
  historyAdapter,
  instructionsAdapter,
  memoryStores,
  type ModelMessage,
  type Plugin,
  type SessionEntry,
  type SessionEntryInput,
  type Stores,
} from '@spindle/core'
import { semanticRecall, workingMemory } from '@spindle/context-memory'
import { z } from 'zod'
import { allocatedPerUnit, type BenchConfig, cell, check, measure, type Report, type Variant } from '../harness.js'
import { addToolDefinitions, historyMessage, policyFor, scriptedModel, spindleRun } from '../workload.js'

const instructions = 'You add numbers with the add tool, then answer "done".'

/** A context window holding `size` messages, as a session's window cache holds it between steps. */
function windowOf(size: number): ContextWindow {
  const window = new ContextWindow(estimateTokenizer)
  const entries: SessionEntry[] = []
  for (let index = 0; index < size; index++)
    entries.push({ kind: 'message', message: historyMessage(index), sessionId: 'session', seq: index + 1, createdAt: 0 })
  window.add(entries)
  return window
}

async function buildTable(config: BenchConfig, report: Report): Promise<void> {
  const sizes = config.quick ? [10, 1_000] : [10, 1_000, 10_000]
  const pipeline = new ContextPipeline({ adapters: [instructionsAdapter, historyAdapter] })
  const tools = addToolDefinitions()
  const model = scriptedModel(1)
  const lines: Array<Array<string | number>> = []
  for (const size of sizes) {
    const window = windowOf(size)
    const input: ContextBuildInput = {
      runId: 'run',
      sessionId: 'session',
      step: 1,
      agentName: 'bench',
      instructions,
      model,
      window: window.entries,
      compaction: undefined,
      tools,
      stores: memoryStores(),
      runtime: undefined,
      signal: new AbortController().signal,
    }
    // Builds per sample: enough that a sample lasts well over a millisecond at every size.
    const builds = Math.max(20, Math.floor(20_000 / Math.max(10, size / 10)))
    let sink = 0
    const spindle = async () => {
      for (let index = 0; index < builds; index++) {
        const built = await pipeline.build(input, window.messages, window.tokens)
        sink += built.request.messages.length
      }
    }
    // The floor: what any loop does to send this window with a system prompt — one new array holding both.
    const bare = async () => {
      for (let index = 0; index < builds; index++) {
        const messages = ([{ role: 'system', content: instructions }] as ModelMessage[]).concat(window.messages)
        sink += messages.length
      }
    }
    const variants: Variant[] = [
      { name: 'bare: system message + window copied into the request', run: bare },
      { name: 'spindle ContextPipeline.build (instructions + history)', run: spindle },
    ]
    const samples = await measure(variants, { rounds: config.quick ? 3 : 11, warmup: 2, unitsPerRun: builds })
    // Every build produced the whole request: the system message and every window message, each time.
    check(sink % (size + 1) === 0 && sink > 0, `context build: ${sink} messages built is not a multiple of ${size + 1}`)
    const built = await pipeline.build(input, window.messages, window.tokens)
    check(
      built.request.messages.length === size + 1 && built.request.messages[0]!.role === 'system',
      'context build: the request holds the system message and the window',
    )
    check(built.tokens > window.tokens, 'context build: the request counts the window, the instructions and the tool')
    for (const variant of variants) {
      const { wall, cpu } = samples.get(variant.name)!
      const allocated = await allocatedPerUnit(variant.run as () => Promise<void>, { repeat: 1, unitsPerRun: builds })
      const base = { suite: 'context', case: 'build one request from a window', variant: variant.name, n: size }
      const wallRow = report.add({ ...base, metric: 'wall per build', unit: 'µs' }, wall)
      report.add({ ...base, metric: 'cpu per build', unit: 'µs' }, cpu)
      report.add({ ...base, metric: 'allocated per build', unit: 'KB' }, allocated / 1024)
      lines.push([variant.name, size, cell(wallRow), Number((allocated / 1024).toFixed(2))])
    }
  }
  report.table(
    'Context build: one model request from a window of N messages (median (min–max))',
    ['variant', 'window messages', 'wall µs/build', 'allocated KB/build'],
    lines,
    'The pipeline runs the instructions and history adapters and counts the request’s tokens (the window’s count is kept by the window, the tool’s is cached): its cost beyond the floor is constant. Both rows copy the window into the request’s own array (8 bytes per message), which is what grows with N: the request must not alias the window, which the run keeps appending to while a model, a recorder or a provider may still hold the request.',
  )
}

/** Appends `count` history messages to a new session, in batches of 500. */
async function prefilledSession(stores: Pick<Stores, 'sessions'>, count: number, name: string): Promise<string> {
  const { id } = await stores.sessions.createSession({ id: name, resourceId: `user_${name}`, metadata: {} })
  for (let start = 0; start < count; start += 500) {
    const batch: SessionEntryInput[] = []
    for (let index = start; index < Math.min(count, start + 500); index++) batch.push({ kind: 'message', message: historyMessage(index) })
    await stores.sessions.append(id, batch)
  }
  return id
}

let sessionCounter = 0

async function adaptersTable(config: BenchConfig, report: Report): Promise<void> {
  const histories = config.quick ? [10] : [10, 1_000]
  const stepsPerRun = 10
  const lines: Array<Array<string | number>> = []
  const configurations: Array<{ name: string; plugins: () => Plugin[] }> = [
    { name: 'default adapters (instructions + history)', plugins: () => [] },
    {
      name: '+ workingMemory (a zod record in the system prompt)',
      plugins: () => [workingMemory({ schema: z.object({ name: z.string(), units: z.enum(['metric', 'imperial']) }) })],
    },
    { name: '+ semanticRecall (hashEmbedding, in-memory vectors)', plugins: () => [semanticRecall({ embeddingModel: hashEmbedding() })] },
  ]
  for (const history of histories) {
    const current = new Map<string, { runtime: AgentRuntime; sessionId: string }>()
    const variants: Variant[] = configurations.map(({ name, plugins }) => ({
      name,
      // A fresh runtime and stores per sample, the session pre-filled and run once (its window and the adapters'
      // indexes warm), so that the sample is the next run on that session.
      before: async () => {
        const extensions = new Extensions().setStores(memoryStores())
        for (const plugin of plugins()) extensions.use(plugin)
        const runtime = new AgentRuntime(extensions, policyFor(stepsPerRun))
        const sessionId = await prefilledSession(runtime, history, `context_${++sessionCounter}`)
        await spindleRun(runtime, stepsPerRun, { sessionId })
        current.set(name, { runtime, sessionId })
      },
      run: async () => {
        const { runtime, sessionId } = current.get(name)!
        const output = await spindleRun(runtime, stepsPerRun, { sessionId })
        check(output.messages.length === 2 * stepsPerRun + 2, `${name}: ${output.messages.length} messages in the run`)
      },
      after: async () => void current.delete(name),
    }))
    const samples = await measure(variants, { rounds: config.quick ? 3 : 11, warmup: 1, unitsPerRun: stepsPerRun })
    for (const variant of variants) {
      const { wall, cpu } = samples.get(variant.name)!
      const base = { suite: 'context', case: 'context adapters in a 10-step run (in-memory stores, warm session)', variant: variant.name, n: history }
      const wallRow = report.add({ ...base, metric: 'wall per step', unit: 'µs' }, wall)
      const cpuRow = report.add({ ...base, metric: 'cpu per step', unit: 'µs' }, cpu)
      lines.push([variant.name, history, cell(wallRow), cell(cpuRow)])
    }
  }
  report.table(
    'Context adapters: per step of a 10-step run on a session with prior history (in-memory stores; median (min–max))',
    ['configuration', 'history', 'wall µs/step', 'CPU µs/step'],
    lines,
    'Each sample is the second run on its session (window cached, adapters warm). Working memory reads its record once per run and adds a system section per step; semantic recall indexes each message as it enters the window (hash embeddings, the in-memory EmbeddingStore) and searches the messages outside the window for the latest user message.',
  )
}

export async function contextSuite(config: BenchConfig, report: Report): Promise<void> {
  await buildTable(config, report)
  await adaptersTable(config, report)
}

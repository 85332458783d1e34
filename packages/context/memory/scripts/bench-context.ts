// Context benchmark: context-build time per step at 100, 10,000 and 100,000 messages of history (the window after
// the last compaction is what a step pays for, so it must stay flat), and the cost of a compaction. Core only (memory stores, truncation); the SQLite-backed runs are in bench/.
// Run: pnpm --filter @spindle/context-memory bench   (or: node --conditions=@spindle/source --import tsx scripts/bench-context.ts)
import {
  AgentRuntime,
  CompactionService,
  ContextPipeline,
  ContextWindow,
  countMessagesTokens,
  defineTool,
  estimateTokenizer,
  Extensions,
  historyAdapter,
  instructionsAdapter,
  memoryStores,
  mockModel,
  truncateCompaction,
  type ContextBuildInput,
  type ModelMessage,
  type SessionEntryInput,
  type SessionStore,
  type Stores,
} from '@spindle/core'
import { z } from 'zod'

const sizes = [100, 10_000, 100_000]
/** Messages kept after the last compaction (a 4,000-token window holds about this many of these messages). */
const windowMessages = 40

function message(index: number): ModelMessage {
  const turn = Math.floor(index / 4)
  switch (index % 4) {
    case 0:
      return { role: 'user', content: `question ${turn}: what does report ${turn} say about the quarterly numbers?` }
    case 1:
      return { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'fetch_report', args: { turn } }] }
    case 2:
      return {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'fetch_report', result: `report ${turn}: ${'figures '.repeat(40)}` }],
      }
    default:
      return { role: 'assistant', content: [{ type: 'text', text: `Report ${turn} shows steady growth.` }] }
  }
}

/** A session log of `count` messages with compactions every 40 messages, as a compacted session has. */
async function populate(sessions: SessionStore, sessionId: string, count: number): Promise<void> {
  await sessions.createSession({ id: sessionId })
  const batch: SessionEntryInput[] = []
  let seq = 0
  for (let index = 0; index < count; index++) {
    batch.push({ kind: 'message', message: message(index) })
    seq++
    if (index % 4 === 3 && index + 1 < count - windowMessages && (index + 1) % 40 === 0) {
      batch.push({ kind: 'compaction', compaction: { throughSeq: seq, strategy: 'truncate' } })
      seq++
    }
    if (batch.length >= 2_000) await sessions.append(sessionId, batch.splice(0))
  }
  if (batch.length) await sessions.append(sessionId, batch.splice(0))
  // The last compaction leaves exactly the window.
  await sessions.append(sessionId, [{ kind: 'compaction', compaction: { throughSeq: seq - windowMessages, strategy: 'truncate' } }])
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const format = (ms: number) => (ms < 1 ? `${(ms * 1_000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)

/** Per-step cost of the pipeline itself: add the step's new entry to the window, then build the request. */
async function pipelineStep(stores: Stores, sessionId: string): Promise<{ load: number; step: number; windowEntries: number }> {
  const pipeline = new ContextPipeline({ adapters: [instructionsAdapter, historyAdapter] })
  const started = performance.now()
  const window = new ContextWindow(estimateTokenizer)
  const [compaction] = await stores.sessions.listEntries(sessionId, { kind: 'compaction', order: 'desc', limit: 1 })
  window.add(await stores.sessions.listEntries(sessionId, { after: compaction?.kind === 'compaction' ? compaction.compaction.throughSeq : 0 }))
  const load = performance.now() - started
  const tools = [{ name: 'fetch_report', description: 'Fetches a report', inputSchema: { type: 'object' } }]
  const input: ContextBuildInput = {
    runId: 'run_bench',
    sessionId,
    step: 1,
    agentName: 'bench',
    instructions: 'Summarize reports.',
    model: mockModel([]),
    window: window.entries,
    compaction: window.compaction,
    tools,
    stores,
    runtime: undefined,
    signal: new AbortController().signal,
  }
  const times: number[] = []
  let seq = window.lastSeq
  for (let step = 0; step < 2_000; step++) {
    const begin = performance.now()
    window.add([{ kind: 'message', message: message(step), sessionId, seq: ++seq, createdAt: 0 }])
    await pipeline.build({ ...input, step, window: window.entries }, window.messages, window.tokens)
    times.push(performance.now() - begin)
    // Keep the window at its compacted size, as proactive compaction does.
    if (window.entries.length > windowMessages + 8) window.applyCompaction({ throughSeq: window.entries[8]!.seq, strategy: 'truncate' })
  }
  return { load, step: median(times.slice(200)), windowEntries: window.entries.length }
}

/** Whole kernel steps (context, model, tool, session-log writes, snapshot) on a session with this much history. */
async function runtimeSteps(extensions: Extensions, sessionId: string): Promise<{ firstRun: number; perStep: number }> {
  const tool = defineTool({
    name: 'fetch_report',
    description: 'Fetches a report',
    inputSchema: z.object({ turn: z.number() }),
    idempotent: true,
    execute: ({ turn }) => `report ${turn}`,
  })
  const model = mockModel((_request, index) => (index % 10 === 9 ? { text: 'done' } : { toolCalls: [{ name: 'fetch_report', args: { turn: index } }] }), {
    capabilities: { contextWindow: 4_000, maxOutputTokens: 400 },
  })
  const runtime = new AgentRuntime(extensions, { maxSteps: 50 })
  let started = performance.now()
  await runtime.run({ agent: { name: 'bench', model, tools: { fetch_report: tool } }, input: 'warm up', sessionId })
  const firstRun = performance.now() - started
  const runs = 10
  started = performance.now()
  let steps = 0
  for (let run = 0; run < runs; run++)
    steps += (await runtime.run({ agent: { name: 'bench', model, tools: { fetch_report: tool } }, input: `go ${run}`, sessionId })).steps
  return { firstRun, perStep: (performance.now() - started) / steps }
}

async function compactionCost(): Promise<Array<{ strategy: string; windowEntries: number; ms: number }>> {
  const results: Array<{ strategy: string; windowEntries: number; ms: number }> = []
  for (const windowEntries of [40, 400, 4_000]) {
    const window = Array.from({ length: windowEntries }, (_, index) => ({
      kind: 'message' as const,
      message: message(index),
      sessionId: 's',
      seq: index + 1,
      createdAt: 0,
    }))
    const total = countMessagesTokens(window.map((entry) => entry.message))
    for (const [strategy, service] of [['truncate', new CompactionService(truncateCompaction())]] as const) {
      const times: number[] = []
      for (let i = 0; i < 20; i++) {
        const started = performance.now()
        await service.compact({
          sessionId: 's',
          window,
          previous: undefined,
          targetTokens: Math.floor(total / 2),
          countTokens: (messages) => countMessagesTokens(messages),
          signal: new AbortController().signal,
        })
        times.push(performance.now() - started)
      }
      results.push({ strategy, windowEntries, ms: median(times) })
    }
  }
  return results
}

async function main(): Promise<void> {
  console.log(`Context build per step (window after compaction: ${windowMessages} messages)\n`)
  console.log('history    | store  | log entries | window load | build/step  | kernel first run | kernel ms/step')
  console.log('-----------|--------|-------------|-------------|-------------|------------------|---------------')
  for (const size of sizes) {
    for (const kind of ['memory'] as const) {
      const extensions = new Extensions().setStores(memoryStores())
      const stores = extensions.stores as Stores
      const sessionId = `ses_bench_${size}`
      await populate(stores.sessions, sessionId, size)
      const logEntries = (await stores.sessions.getSession(sessionId))!.lastSeq
      const pipeline = await pipelineStep(stores, sessionId)
      const kernel = await runtimeSteps(extensions, sessionId)
      console.log(
        `${String(size).padEnd(10)} | ${kind.padEnd(6)} | ${String(logEntries).padEnd(11)} | ${format(pipeline.load).padEnd(11)} | ${format(pipeline.step).padEnd(11)} | ${format(kernel.firstRun).padEnd(16)} | ${format(kernel.perStep)}`,
      )
    }
  }
  console.log('\nCompaction cost (median of 20)\n')
  console.log('strategy                    | window entries | time')
  console.log('----------------------------|----------------|---------')
  for (const row of await compactionCost()) console.log(`${row.strategy.padEnd(27)} | ${String(row.windowEntries).padEnd(14)} | ${format(row.ms)}`)
}

await main()

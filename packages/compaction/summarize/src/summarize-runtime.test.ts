// summarizeCompaction inside AgentRuntime, on core's mock model: incremental summaries, the summarization request,
// and the fall back to truncation when the summarizer fails; plus the compaction-strategy conformance kit.
import { AgentRuntime, defineTool, Extensions, mockModel, ProviderError, type CompactionRecord, type MockModel, type ModelRequest } from '@spindle/core'
import { describeCompactionStrategy } from '@spindle/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { summarizeCompaction } from './index.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a topic up',
  inputSchema: z.object({ topic: z.string() }),
  idempotent: true,
  execute: ({ topic }) => `${topic}: ${'facts '.repeat(120)}`,
})

/** Every turn: a tool call, then an answer. */
function agentModel(contextWindow: number): MockModel {
  return mockModel(
    (request, index) =>
      index % 2 === 0 ? { toolCalls: [{ name: 'lookup', args: { topic: `topic-${index}` } }] } : { text: `answer ${index} ${'y'.repeat(200)}` },
    {
      capabilities: { contextWindow, maxOutputTokens: 256 },
    },
  )
}

const summaryText = (label: string) =>
  `## Goal\nResearch topics (${label})\n## Constraints\nNone\n## Progress\nLooked up topics\n## Decisions\n(none)\n## Next steps\nContinue`

async function converse(runtime: AgentRuntime, model: MockModel, turns: number): Promise<string> {
  let sessionId: string | undefined
  for (let turn = 0; turn < turns; turn++) {
    const output = await runtime.run({ agent: { name: 'researcher', model, tools: { lookup } }, input: `question ${turn}`, sessionId })
    expect(output.finishReason).toBe('stop')
    sessionId = output.sessionId
  }
  return sessionId!
}

function compactions(entries: Awaited<ReturnType<AgentRuntime['sessions']['listEntries']>>): CompactionRecord[] {
  return entries.flatMap((entry) => (entry.kind === 'compaction' ? [entry.compaction] : []))
}

function approxTokens(request: ModelRequest): number {
  return JSON.stringify(request.messages).length / 3.6
}

describe('summarizeCompaction in AgentRuntime', () => {
  it('writes incremental summaries that later requests carry; originals stay in the log', async () => {
    const prompts: string[] = []
    const summarizer = mockModel((request) => {
      prompts.push(String(request.messages[1]?.content))
      return { text: summaryText(`summary #${prompts.length}`) }
    })
    const extensions = new Extensions()
    extensions.compaction = summarizeCompaction({ model: summarizer, maxSummaryTokens: 200 })
    const runtime = new AgentRuntime(extensions)
    const model = agentModel(3_000)
    const sessionId = await converse(runtime, model, 20)
    const entries = await runtime.sessions.listEntries(sessionId)
    const records = compactions(entries)
    expect(records.length).toBeGreaterThan(1)
    expect(records.every((record) => record.strategy === 'summarize')).toBe(true)
    // Incremental: the second summarization receives the first summary.
    expect(prompts[1]).toContain('summary #1')
    const last = model.calls.at(-1)!
    expect(String(last.messages[0]?.content)).toContain(`Research topics (summary #${prompts.length})`)
    for (const request of model.calls) {
      expect(approxTokens(request)).toBeLessThan(3_000)
      expect(request.messages.find((message) => message.role !== 'system')?.role).not.toBe('tool')
    }
    expect(entries.filter((entry) => entry.kind === 'message' && entry.message.role === 'user')).toHaveLength(20)
  })

  it('a failing summarizer falls back to truncation, then the breaker stops calling it; the run never fails', async () => {
    let summarizerCalls = 0
    const summarizer = mockModel(() => {
      summarizerCalls++
      return summarizerCalls === 1 ? { text: '' } : { error: new Error('summarizer down') }
    })
    const extensions = new Extensions()
    extensions.compaction = summarizeCompaction({ model: summarizer })
    const runtime = new AgentRuntime(extensions)
    const model = agentModel(3_000)
    const sessionId = await converse(runtime, model, 20)
    const records = compactions(await runtime.sessions.listEntries(sessionId))
    expect(records.length).toBeGreaterThan(3)
    expect(records.every((record) => record.strategy === 'truncate' && record.summary === undefined)).toBe(true)
    expect(summarizerCalls).toBe(3)
    expect(runtime.compaction.circuitOpen).toBe(true)
    for (const request of model.calls) expect(approxTokens(request)).toBeLessThan(3_000)
  })
})

describe('summarizeCompaction: the summarization request and a failing summarizer model', () => {
  it('sends the summarization request (system sections, transcript, max tokens) and records the parsed, sectioned summary', async () => {
    const summarizer = mockModel((_request, index) => ({ text: `**Goal:** research\n**Progress:** call ${index} done\n**Next steps:** more` }))
    const extensions = new Extensions()
    extensions.compaction = summarizeCompaction({ model: summarizer, maxSummaryTokens: 300 })
    const runtime = new AgentRuntime(extensions)
    const sessionId = await converse(runtime, agentModel(3_000), 12)
    const records = compactions(await runtime.sessions.listEntries(sessionId))
    expect(records.length).toBeGreaterThan(0)
    expect(records[0]!.strategy).toBe('summarize')
    expect(records[0]!.summary).toBe('## Goal\nresearch\n\n## Constraints\n(none)\n\n## Progress\ncall 0 done\n\n## Decisions\n(none)\n\n## Next steps\nmore')
    const first = summarizer.calls[0]!
    expect(first.maxOutputTokens).toBe(300)
    expect(first.messages[0]!.role).toBe('system')
    expect(JSON.stringify(first.messages[0]!.content)).toContain('## Next steps')
    expect(JSON.stringify(first.messages.slice(1))).toContain('[tool call lookup]')
    // The second summarization is incremental: it carries the first summary.
    expect(JSON.stringify(summarizer.calls[1]?.messages)).toContain('call 0 done')
  })

  it('a provider error from the summarizer falls back to truncation and the run completes', async () => {
    const summarizer = mockModel(() => ({ error: new ProviderError('[spindle/test] Overloaded', { status: 529, provider: 'test' }) }))
    const extensions = new Extensions()
    extensions.compaction = summarizeCompaction({ model: summarizer })
    const runtime = new AgentRuntime(extensions)
    const sessionId = await converse(runtime, agentModel(3_000), 12)
    const records = compactions(await runtime.sessions.listEntries(sessionId))
    expect(records.length).toBeGreaterThan(0)
    expect(records.every((record) => record.strategy === 'truncate')).toBe(true)
    expect(summarizer.calls.length).toBeGreaterThan(0)
    expect(summarizer.calls.length).toBeLessThanOrEqual(3)
    expect(String(runtime.compaction.lastError)).toMatch(/overloaded/i)
  })
})

describeCompactionStrategy(() => summarizeCompaction({ model: mockModel([{ text: summaryText('conformance') }]) }))

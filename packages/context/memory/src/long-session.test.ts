// Done-when of the context issue: a scripted 2,000-turn session with large tool outputs, on core's memory stores,
// with a small context window: no overflow, every request within budget, compactions recorded, originals readable.
import {
  AgentRuntime,
  ContextOverflowError,
  countMessagesTokens,
  defineTool,
  estimateTokenizer,
  Extensions,
  memoryStores,
  mockModel,
  readArtifactTool,
  type ModelRequest,
  type Stores,
} from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

/** Core's memory stores, one set per name: runtimes given the same name share one database. */
const databases = new Map<string, Stores>()
const storesAt = (path: string): Stores => databases.get(path) ?? databases.set(path, memoryStores()).get(path)!

const contextWindow = 4_000
const maxOutputTokens = 400
const budget = contextWindow - maxOutputTokens

function requestTokens(request: ModelRequest): number {
  return countMessagesTokens(request.messages, estimateTokenizer) + (request.tools?.length ? estimateTokenizer.count(JSON.stringify(request.tools)) : 0)
}

describe('a 2,000-turn session on the memory stores with a 4,000-token window', () => {
  it('never overflows, keeps every request within budget, records compactions and keeps the originals', async () => {
    const turns = 2_000
    const fetchReport = defineTool({
      name: 'fetch_report',
      description: 'Fetches a long report',
      inputSchema: z.object({ turn: z.number() }),
      idempotent: true,
      // ~12 KB per call: far above the 2 KB kept in the context, so every output goes to the ArtifactStore.
      execute: ({ turn }) => `report ${turn}\n` + Array.from({ length: 300 }, (_, line) => `row ${line} of report ${turn}: ${'v'.repeat(24)}`).join('\n'),
    })
    let overflowCheck = 0
    let artifactReads = 0
    const model = mockModel(
      (request) => {
        // A real provider would reject an oversized request: this one does too, so an overflow cannot go unnoticed.
        if (requestTokens(request) > budget) {
          overflowCheck++
          return { error: new ContextOverflowError('[test] the request exceeds the context window') }
        }
        const last = request.messages.at(-1)!
        if (last.role === 'user') {
          const turn = Number(/turn (\d+)/.exec(String(last.content))?.[1])
          return { toolCalls: [{ name: 'fetch_report', args: { turn } }] }
        }
        const result = JSON.stringify(last.content)
        const artifact = /artifact ([0-9a-f]{64})/.exec(result)?.[1]
        const user = request.messages.findLast((message) => message.role === 'user')
        const turn = Number(/turn (\d+)/.exec(String(user?.content))?.[1])
        // Every 100th turn the model follows the truncation marker and reads a range back.
        if (artifact && turn % 100 === 50 && result.includes('fetch_report')) {
          artifactReads++
          return { toolCalls: [{ name: 'read_artifact', args: { id: artifact, startLine: 150, endLine: 152 } }] }
        }
        return { text: `done with turn ${turn}` }
      },
      { capabilities: { contextWindow, maxOutputTokens } },
    )
    const extensions = new Extensions().setStores(storesAt('long.db'))
    extensions.tools.register(readArtifactTool({ maxBytes: 1_000 }))
    const runtime = new AgentRuntime(extensions, { maxToolOutputBytes: 2_000 })
    let sessionId: string | undefined
    const started = performance.now()
    for (let turn = 0; turn < turns; turn++) {
      const output = await runtime.run({
        agent: { name: 'analyst', instructions: 'Summarize reports.', model, tools: { fetch_report: fetchReport } },
        input: `turn ${turn}`,
        sessionId,
      })
      if (output.finishReason !== 'stop') throw new Error(`turn ${turn} ended with ${output.finishReason}: ${JSON.stringify(output.error)}`)
      sessionId = output.sessionId
    }
    const elapsed = performance.now() - started

    expect(overflowCheck).toBe(0)
    expect(model.calls.length).toBe(2 * turns + artifactReads)
    let largest = 0
    for (const request of model.calls) {
      const tokens = requestTokens(request)
      largest = Math.max(largest, tokens)
      expect(tokens).toBeLessThanOrEqual(budget)
      // The window never starts with a tool result whose call was cut away.
      expect(request.messages.find((message) => message.role !== 'system')?.role).not.toBe('tool')
    }
    expect(artifactReads).toBe(turns / 100)
    // The range read back reached the model whole (not truncated into a new artifact).
    const readBacks = model.calls.filter((request) => JSON.stringify(request.messages.at(-1)).includes('lines 150-152'))
    expect(readBacks).toHaveLength(artifactReads)
    expect(JSON.stringify(readBacks[0]!.messages.at(-1))).toContain('row 149 of report 50')
    const entries = await runtime.sessions.listEntries(sessionId!)
    const compactions = entries.filter((entry) => entry.kind === 'compaction')
    expect(compactions.length).toBeGreaterThan(100)
    const messages = entries.filter((entry) => entry.kind === 'message')
    // Every original message is still in the log: user, assistant (call), tool, assistant (answer) per turn.
    expect(messages.length).toBe(4 * turns + 2 * artifactReads)
    const first = messages[0]!
    expect(first.kind === 'message' && first.message).toEqual({ role: 'user', content: 'turn 0' })
    const artifacts = await runtime.artifacts.list({ limit: 5 })
    expect(artifacts.length).toBe(5)
    console.info(
      `[long-session] ${turns} turns, ${model.calls.length} model calls, ${compactions.length} compactions, largest request ${largest} tokens of ${budget}, ${Math.round(elapsed)} ms`,
    )
  }, 120_000)
})

import { AgentRuntime, defineTool, Extensions, hashEmbedding, memoryStores, mockModel, type EmbeddingModel, type MockModel, type Stores } from '@spindle/core'
import { describeContextAdapter } from '@spindle/testing'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { semanticRecall } from './index.js'

/** Core's memory stores, one set per name: runtimes given the same name share one database. */
const databases = new Map<string, Stores>()
const storesAt = (path: string): Stores => databases.get(path) ?? databases.set(path, memoryStores()).get(path)!

const fillers = ['weather in the mountains', 'train timetables', 'how to bake bread', 'football results', 'learning the guitar', 'stock market news']

/** Counts the texts embedded, so tests can see what was (re-)indexed. */
function countingEmbedding(): EmbeddingModel & { texts: number } {
  const base = hashEmbedding()
  const model = {
    ...base,
    texts: 0,
    async embed(texts: string[]) {
      model.texts += texts.length
      return base.embed(texts)
    },
  }
  return model
}

function chatModel(): MockModel {
  return mockModel((request) => ({ text: `Noted: ${String(request.messages.at(-1)?.content).slice(0, 40)} ${'z'.repeat(300)}` }), {
    capabilities: { contextWindow: 1_500, maxOutputTokens: 200 },
  })
}

function systemOf(model: MockModel, index = -1): string {
  const request = model.calls.at(index)!
  return request.messages[0]?.role === 'system' ? String(request.messages[0].content) : ''
}

describe('semanticRecall', () => {
  it('recalls facts planted early in a long session when a later question needs them', async () => {
    const embedding = countingEmbedding()
    const extensions = new Extensions().setStores(storesAt('recall.db')).use(semanticRecall({ embeddingModel: embedding, topK: 3 }))
    const runtime = new AgentRuntime(extensions)
    const model = chatModel()
    const ask = async (input: string, sessionId?: string) => (await runtime.run({ agent: { name: 'assistant', model }, input, sessionId })).sessionId
    const sessionId = await ask('My cat is called Bartholomew and he is a grey tabby.')
    await ask('Remember that my flight to Reykjavik departs on the ninth of March.', sessionId)
    for (let turn = 0; turn < 60; turn++) await ask(`Tell me something about ${fillers[turn % fillers.length]}, part ${turn}.`, sessionId)
    const entries = await runtime.sessions.listEntries(sessionId)
    expect(entries.some((entry) => entry.kind === 'compaction')).toBe(true)
    // The planted facts left the window long ago.
    expect(JSON.stringify(model.calls.at(-1)!.messages.slice(1))).not.toContain('Bartholomew')

    await ask('What is the name of my cat?', sessionId)
    const system = systemOf(model)
    expect(system).toContain('Recalled from earlier conversation')
    expect(system).toContain('Bartholomew')
    // The unrelated filler turns score below minScore.
    expect(system).not.toMatch(/part \d+/)
    await ask('When does my flight to Reykjavik depart?', sessionId)
    expect(systemOf(model)).toContain('ninth of March')
    // Each message was embedded once (plus one query per user turn), not once per step.
    const indexed = entries.filter((entry) => entry.kind === 'message').length + 3
    const userTurns = 64
    expect(embedding.texts).toBeLessThanOrEqual(indexed + userTurns)
  })

  it('does not recall what is still in the window', async () => {
    const extensions = new Extensions().use(semanticRecall({ embeddingModel: hashEmbedding() }))
    const runtime = new AgentRuntime(extensions)
    const model = chatModel()
    const first = await runtime.run({ agent: { name: 'a', model }, input: 'My dog is named Rex.' })
    await runtime.run({ agent: { name: 'a', model }, input: 'What is my dog named?', sessionId: first.sessionId })
    expect(systemOf(model)).not.toContain('Recalled')
  })

  it('resource scope recalls across the sessions of one user, never another user', async () => {
    const extensions = new Extensions().setStores(storesAt('resource.db')).use(semanticRecall({ embeddingModel: hashEmbedding(), scope: 'resource' }))
    const runtime = new AgentRuntime(extensions)
    const model = chatModel()
    await runtime.run({ agent: { name: 'a', model }, input: 'My favourite colour is ultramarine blue.', resourceId: 'user-ann' })
    await runtime.run({ agent: { name: 'a', model }, input: 'My favourite colour is scarlet red.', resourceId: 'user-bob' })
    await runtime.run({ agent: { name: 'a', model }, input: 'What is my favourite colour?', resourceId: 'user-ann' })
    const system = systemOf(model)
    expect(system).toContain('ultramarine')
    expect(system).toContain('another conversation')
    expect(system).not.toContain('scarlet')
  })

  it('a new process continues indexing from the stored marker instead of re-embedding the session', async () => {
    const path = 'marker.db'
    const firstEmbedding = countingEmbedding()
    const first = new AgentRuntime(new Extensions().setStores(storesAt(path)).use(semanticRecall({ embeddingModel: firstEmbedding })))
    const model = chatModel()
    let sessionId: string | undefined
    for (let turn = 0; turn < 30; turn++)
      sessionId = (await first.run({ agent: { name: 'a', model }, input: `note ${turn}: ${fillers[turn % fillers.length]}`, sessionId })).sessionId
    expect(firstEmbedding.texts).toBeGreaterThan(50)

    const secondEmbedding = countingEmbedding()
    const extensions = new Extensions().setStores(storesAt(path)).use(semanticRecall({ embeddingModel: secondEmbedding }))
    // The same gate: the in-process gate's fencing tokens restart at 1, which the shared log would reject.
    extensions.gate = first.sessionGate
    const second = new AgentRuntime(extensions)
    const output = await second.run({ agent: { name: 'a', model }, input: 'What did I note about bread?', sessionId })
    // The new question, the answer, and one query: nothing older is embedded again.
    expect(secondEmbedding.texts).toBeLessThanOrEqual(3)
    expect(output.finishReason).toBe('stop')
    expect(systemOf(model)).toContain('bread')
    expect(systemOf(model)).not.toContain('stock market')
  })

  describe('a long tool run compacted mid-run (its question carried over the cut)', () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks up',
      inputSchema: z.object({ q: z.string() }),
      idempotent: true,
      execute: ({ q }) => `${q}: ${'data '.repeat(80)}`,
    })
    const facts = [
      'The first Lisbon tram line opened in eighteen seventy three.',
      'Route 28 climbs through the Alfama district.',
      'Electric trams replaced horse cars in nineteen hundred and one.',
    ]
    const capabilities = { capabilities: { contextWindow: 900, maxOutputTokens: 200 } }
    /** Twelve tool steps, the first three stating facts, then an answer. */
    const researcher = () =>
      mockModel(
        (_request, index) =>
          index < 12
            ? { text: index < 3 ? facts[index] : `step ${index} ${'w'.repeat(100)}`, toolCalls: [{ name: 'lookup', args: { q: `item ${index}` } }] }
            : { text: 'done' },
        capabilities,
      )

    it('does not recall the carried question, which is still in the window, as earlier conversation', async () => {
      const runtime = new AgentRuntime(new Extensions().use(semanticRecall({ embeddingModel: hashEmbedding() })), { maxSteps: 40 })
      const model = researcher()
      const output = await runtime.run({ agent: { name: 'a', model, tools: { lookup } }, input: 'Research the history of the Lisbon tram network.' })
      expect(output.finishReason).toBe('stop')
      const compactions = (await runtime.sessions.listEntries(output.sessionId)).flatMap((entry) => (entry.kind === 'compaction' ? [entry.compaction] : []))
      expect(compactions.length).toBeGreaterThan(1)
      expect(compactions.every((compaction) => compaction.carried?.[0]?.seq === 1)).toBe(true)
      for (const [index, request] of model.calls.entries()) {
        const recalled = request.messages
          .filter((message) => message.role === 'system')
          .map((message) => String(message.content))
          .find((text) => text.startsWith('Recalled'))
        expect(recalled ?? '', `request ${index}`).not.toContain('Research the history')
      }
    })

    it('another process indexes what the compaction left between the carried question and the cut', async () => {
      const path = 'carried-gap.db'
      const first = new AgentRuntime(new Extensions().setStores(storesAt(path)).use(semanticRecall({ embeddingModel: hashEmbedding() })))
      const { sessionId } = await first.run({
        agent: { name: 'a', model: mockModel([{ text: 'Noted.' }], capabilities) },
        input: 'My cat is called Bartholomew.',
      })
      // A worker without the recall plugin runs the long tool run.
      const withoutRecall = new Extensions().setStores(storesAt(path))
      withoutRecall.gate = first.sessionGate
      await new AgentRuntime(withoutRecall, { maxSteps: 40 }).run({
        agent: { name: 'a', model: researcher(), tools: { lookup } },
        input: 'Research the Lisbon tram network.',
        sessionId,
      })
      const withRecall = new Extensions().setStores(storesAt(path)).use(semanticRecall({ embeddingModel: hashEmbedding() }))
      withRecall.gate = first.sessionGate
      const model = mockModel(() => ({ text: 'ok' }), capabilities)
      await new AgentRuntime(withRecall).run({ agent: { name: 'a', model }, input: 'When did the first Lisbon tram line open?', sessionId })
      expect(systemOf(model)).toContain('eighteen seventy three')
    })
  })

  it('leaves nothing of an evicted session in the memory stores: its records and its index marker go with it', async () => {
    const stores = memoryStores({ retention: { maxSessions: 1 } })
    const extensions = new Extensions().setStores(stores).use(semanticRecall({ embeddingModel: hashEmbedding() }))
    const runtime = new AgentRuntime(extensions)
    const model = chatModel()
    await runtime.run({ agent: { name: 'assistant', model }, input: 'My cat is called Bartholomew.', sessionId: 'old' })
    const marker = 'spindle:recall:marker:old'
    expect(await stores.embeddings.get(marker)).toMatchObject({ metadata: { sessionId: 'old' } })
    expect(await stores.embeddings.get('old:1')).toBeDefined()

    await runtime.run({ agent: { name: 'assistant', model }, input: 'Something else entirely.', sessionId: 'new' })
    expect(await runtime.sessions.getSession('old')).toBeUndefined()
    expect(await stores.embeddings.get('old:1')).toBeUndefined()
    expect(await stores.embeddings.get(marker)).toBeUndefined()
    expect(await stores.embeddings.get('spindle:recall:marker:new')).toBeDefined()
  })
})

describeContextAdapter(() => semanticRecall({ embeddingModel: hashEmbedding() }).adapter)

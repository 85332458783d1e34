// Nothing registered is silently unused: every registered store, tool, adapter, strategy, gate, bus and
// provider is the one the run actually used.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  AgentRuntime,
  DuplicateError,
  defineTool,
  Extensions,
  InProcessEventBus,
  InProcessSessionGate,
  memoryStores,
  mockModel,
  truncateCompaction,
  type CompactionStrategy,
  type ContextAdapter,
  type Stores,
} from '../index.js'

function counting(stores: Stores): { stores: Stores; calls: Map<string, number> } {
  const calls = new Map<string, number>()
  const wrapped = Object.fromEntries(
    Object.entries(stores).map(([name, store]) => [
      name,
      new Proxy(store as object, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver)
          if (typeof value !== 'function') return value
          return (...args: unknown[]) => {
            calls.set(name, (calls.get(name) ?? 0) + 1)
            return value.apply(target, args)
          }
        },
      }),
    ]),
  ) as unknown as Stores
  return { stores: wrapped, calls }
}

describe('wiring', () => {
  it('uses the registered stores, tool, adapter, compaction, gate, bus and provider', async () => {
    const { stores, calls } = counting(memoryStores())
    const gate = new InProcessSessionGate()
    let acquired = 0
    const acquire = gate.acquire.bind(gate)
    gate.acquire = (...args) => {
      acquired++
      return acquire(...args)
    }
    const bus = new InProcessEventBus()
    let published = 0
    const publish = bus.publish.bind(bus)
    bus.publish = (event) => {
      published++
      publish(event)
    }
    let adapterCalls = 0
    const adapter: ContextAdapter = {
      name: 'notes',
      apply(draft) {
        adapterCalls++
        draft.system.push('NOTE: the user prefers metric units.')
      },
    }
    let compactions = 0
    const base = truncateCompaction()
    // Counts the compactions made (a strategy call that finds nothing worth cutting makes none).
    const compaction: CompactionStrategy = {
      name: 'counting',
      compact: async (input) => {
        const record = await base.compact(input)
        if (record) compactions++
        return record
      },
    }
    let toolRuns = 0
    const registered = defineTool({
      name: 'lookup',
      description: 'l',
      inputSchema: z.object({}),
      execute: () => {
        toolRuns++
        return 'x'.repeat(5_000)
      },
    })
    const model = mockModel([{ toolCalls: [{ name: 'lookup', args: {} }] }, { toolCalls: [{ name: 'lookup', args: {} }] }, { text: 'done' }], {
      provider: 'acme',
      modelId: 'm1',
      capabilities: { contextWindow: 1_000, maxOutputTokens: 400 },
    })
    const extensions = new Extensions().setStores(stores)
    extensions.gate = gate
    extensions.events = bus
    extensions.compaction = compaction
    extensions.tools.register(registered)
    extensions.addContextAdapter(adapter)
    extensions.providers.registerProvider('acme', { languageModel: (id) => (id === 'm1' ? model : (undefined as never)) })
    const runtime = new AgentRuntime(extensions, { maxToolOutputBytes: 1_000 })
    expect(runtime.sessions).toBe(stores.sessions)
    expect(runtime.embeddings).toBe(stores.embeddings)
    expect(runtime.sessionGate).toBe(gate)
    expect(runtime.events).toBe(bus)
    const output = await runtime.run({ agent: { name: 'a', model: 'acme:m1' }, input: 'look it up' })
    expect(output.text).toBe('done')
    for (const kind of ['sessions', 'runs', 'executions', 'snapshots', 'artifacts'] as const) expect(calls.get(kind), kind).toBeGreaterThan(0)
    expect(acquired).toBe(1)
    expect(published).toBeGreaterThan(5)
    // Once per step, plus one rebuild after each proactive compaction.
    expect(adapterCalls).toBe(3 + compactions)
    expect(model.calls[0]?.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('metric units') })
    expect(toolRuns).toBe(2)
    expect(compactions).toBeGreaterThan(0)
    expect(runtime.compaction.strategy).toBe(compaction)
  })

  it('falls back to in-memory defaults for every missing slot', async () => {
    const runtime = new AgentRuntime(new Extensions())
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'ok' }]) }, input: 'x' })
    expect(await runtime.sessions.getSession(output.sessionId)).toBeDefined()
    expect(runtime.sessionGate).toBeInstanceOf(InProcessSessionGate)
    expect(runtime.events).toBeInstanceOf(InProcessEventBus)
    expect(runtime.compaction.strategy.name).toBe('truncate')
  })

  it('a context adapter added after the runtime was built is still used', async () => {
    const extensions = new Extensions()
    const runtime = new AgentRuntime(extensions)
    extensions.addContextAdapter({ name: 'late', apply: (draft) => void draft.system.push('LATE ADAPTER') })
    const model = mockModel([{ text: 'ok' }, { text: 'ok' }, { text: 'ok' }, { text: 'ok' }])
    await runtime.run({ agent: { name: 'a', model }, input: 'x' })
    expect(JSON.stringify(model.calls[0]?.messages)).toContain('LATE ADAPTER')
    // The list the runtime builds from is kept between builds, and rebuilt when the extensions' list changes.
    await runtime.run({ agent: { name: 'a', model }, input: 'y' })
    expect(JSON.stringify(model.calls[1]?.messages)).toContain('LATE ADAPTER')
    extensions.context.splice(0, 1, { name: 'other', apply: (draft) => void draft.system.push('OTHER ADAPTER') })
    await runtime.run({ agent: { name: 'a', model }, input: 'z' })
    expect(JSON.stringify(model.calls[2]?.messages)).not.toContain('LATE ADAPTER')
    expect(JSON.stringify(model.calls[2]?.messages)).toContain('OTHER ADAPTER')
    extensions.context.length = 0
    await runtime.run({ agent: { name: 'a', model }, input: 'w' })
    expect(JSON.stringify(model.calls[3]?.messages)).not.toContain('ADAPTER')
    expect(runtime.context.adapters.map((adapter) => adapter.name)).toEqual(['instructions', 'history'])
  })

  it('a long session is compacted: requests stay within the window, a tool call is never split from its result', async () => {
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text, idempotent: true })
    const model = mockModel(
      (_request, index) =>
        index % 3 === 2 ? { text: `answer ${index} ` + 'y'.repeat(300) } : { toolCalls: [{ name: 'echo', args: { text: `${index} ` + 'z'.repeat(300) } }] },
      {
        capabilities: { contextWindow: 2_000, maxOutputTokens: 200 },
      },
    )
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 10 })
    let sessionId: string | undefined
    for (let turn = 0; turn < 12; turn++) {
      const output = await runtime.run({ agent: { name: 'a', model, tools: { echo } }, input: `question ${turn}`, sessionId })
      sessionId = output.sessionId
    }
    for (const request of model.calls) {
      const first = request.messages.find((message) => message.role !== 'system')
      expect(first?.role).not.toBe('tool')
      const tokens = JSON.stringify(request.messages).length / 3.6
      expect(tokens).toBeLessThan(2_000)
    }
    const entries = await runtime.sessions.listEntries(sessionId!)
    expect(entries.some((entry) => entry.kind === 'compaction')).toBe(true)
    expect(entries.filter((entry) => entry.kind === 'message' && entry.message.role === 'user')).toHaveLength(12)
  })

  it("one long run's steps fill the window: compaction cuts them but every request keeps the run's question, and a result larger than the window is cut to fit", async () => {
    const question = 'What were the Q3 sales in France?'
    const report = defineTool({
      name: 'report',
      description: 'r',
      inputSchema: z.object({ part: z.number() }),
      execute: ({ part }) => `part ${part} ` + 'q'.repeat(1_800),
      idempotent: true,
    })
    // A 12 KB result: under maxToolOutputBytes (32,000) but several times this model's window.
    const dump = defineTool({ name: 'dump', description: 'd', inputSchema: z.object({}), execute: () => 'row;'.repeat(3_000), idempotent: true })
    const model = mockModel(
      (_request, index) =>
        index === 0
          ? { toolCalls: [{ name: 'dump', args: {} }] }
          : index < 7
            ? { toolCalls: [{ name: 'report', args: { part: index } }] }
            : { text: 'France: 12 M€' },
      { capabilities: { contextWindow: 2_000, maxOutputTokens: 200 } },
    )
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 10 })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { report, dump } }, input: question })
    expect(output.finishReason).toBe('stop')
    const entries = await runtime.sessions.listEntries(output.sessionId)
    expect(entries.some((entry) => entry.kind === 'compaction' && entry.compaction.carried?.[0]?.message.content === question)).toBe(true)
    for (const request of model.calls) {
      const first = request.messages.find((message) => message.role !== 'system')
      expect(first).toEqual({ role: 'user', content: question })
      expect(JSON.stringify(request.messages).length / 3.6).toBeLessThan(2_000)
    }
    // The whole dump is kept as an artifact the model can read.
    const dumped = entries.find((entry) => entry.kind === 'message' && entry.message.role === 'tool' && entry.message.content[0]?.toolName === 'dump')
    expect(JSON.stringify(dumped).length).toBeLessThan(2_000)
    expect(JSON.stringify(dumped)).toContain('art')
  })
})

describe('the context window of a run', () => {
  it('a session the run creates is not read back (it has no entries); a session that exists is, with its history', async () => {
    const stores = memoryStores()
    let listed = 0
    const listEntries = stores.sessions.listEntries.bind(stores.sessions)
    stores.sessions.listEntries = (...args) => {
      listed++
      return listEntries(...args)
    }
    const runtime = new AgentRuntime(new Extensions().setStores(stores))
    const first = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'one' }]) }, input: 'new session' })
    await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'two' }]) }, input: 'named new session', sessionId: 'ses_named' })
    expect(listed).toBe(0)
    expect((await stores.sessions.listEntries(first.sessionId)).map((entry) => entry.seq)).toEqual([1, 2])
    listed = 0
    // A session created beforehand, with history, on a runtime that has no window cached: read, and sent to the model.
    await stores.sessions.createSession({ id: 'ses_old' })
    await stores.sessions.append('ses_old', [
      { kind: 'message', message: { role: 'user', content: 'earlier question' } },
      { kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] } },
    ])
    const model = mockModel([{ text: 'three' }])
    await new AgentRuntime(new Extensions().setStores(stores)).run({ agent: { name: 'a', model }, input: 'follow-up', sessionId: 'ses_old' })
    expect(listed).toBeGreaterThan(0)
    expect(model.calls[0]!.messages.map((message) => message.content)).toEqual(['earlier question', [{ type: 'text', text: 'earlier answer' }], 'follow-up'])
  })

  it('a session another writer created first (a lost create race) is read: its entries reach the model', async () => {
    const stores = memoryStores()
    const createSession = stores.sessions.createSession.bind(stores.sessions)
    stores.sessions.createSession = async (input) => {
      // The other writer wins: the session exists, with an entry, by the time this create runs.
      await createSession(input)
      await stores.sessions.append(input!.id!, [{ kind: 'message', message: { role: 'user', content: 'written by the other writer' } }])
      throw new DuplicateError('already exists')
    }
    const model = mockModel([{ text: 'ok' }])
    const output = await new AgentRuntime(new Extensions().setStores(stores)).run({ agent: { name: 'a', model }, input: 'mine', sessionId: 'ses_race' })
    expect(output.finishReason).toBe('stop')
    expect(model.calls[0]!.messages.map((message) => message.content)).toEqual(['written by the other writer', 'mine'])
    expect((await stores.sessions.listEntries('ses_race')).map((entry) => entry.seq)).toEqual([1, 2, 3])
  })
})

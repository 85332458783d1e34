import { describe, expect, it } from 'vitest'
import { mockModel } from '../providers/mock-model.js'
import type { ToolSpecification } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { SessionEntry } from '../spec/session-store.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { historyAdapter, instructionsAdapter } from './builtin-adapters.js'
import type { ContextAdapter, ContextBuildInput } from '../spec/context-adapter.js'
import { ContextPipeline } from './context-pipeline.js'
import { ContextWindow } from './context-window.js'
import { countMessagesTokens, estimateTokenizer, type Tokenizer } from './tokenizer.js'

const stores = memoryStores()

function entries(messages: ModelMessage[]): SessionEntry[] {
  return messages.map((message, index) => ({ kind: 'message', message, sessionId: 's', seq: index + 1, createdAt: 0 }))
}

function input(overrides: Partial<ContextBuildInput> = {}): ContextBuildInput {
  return {
    runId: 'run-1',
    sessionId: 's',
    step: 1,
    agentName: 'assistant',
    instructions: 'You are helpful.',
    model: mockModel([]),
    window: [],
    compaction: undefined,
    tools: [],
    stores,
    runtime: undefined,
    signal: new AbortController().signal,
    ...overrides,
  }
}

function windowOf(messages: ModelMessage[]): ContextWindow {
  const window = new ContextWindow(estimateTokenizer)
  window.add(entries(messages))
  return window
}

const history: ModelMessage[] = [
  { role: 'user', content: 'What is the weather?' },
  { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] },
  { role: 'user', content: 'And tomorrow?' },
]

const tool: ToolSpecification = { name: 'forecast', description: 'Weather forecast', inputSchema: { type: 'object', properties: { day: { type: 'string' } } } }

/** A tokenizer that counts how often it is called, to prove caching. */
function countingTokenizer(): Tokenizer & { calls: string[] } {
  const calls: string[] = []
  return {
    name: 'counting',
    calls,
    count(text) {
      calls.push(text)
      return estimateTokenizer.count(text)
    },
  }
}

describe('ContextPipeline', () => {
  it('runs instructions, then history, then custom adapters, in order', async () => {
    const order: string[] = []
    const notes: ContextAdapter = {
      name: 'notes',
      apply(draft) {
        order.push('notes')
        draft.system.push('Runtime notes: the user is in Paris.')
        draft.messages.push({ role: 'user', content: 'Recalled: the user likes short answers.' })
      },
    }
    const tracing = (adapter: ContextAdapter): ContextAdapter => ({
      name: adapter.name,
      apply: (draft, buildInput) => {
        order.push(adapter.name)
        return adapter.apply(draft, buildInput)
      },
    })
    const pipeline = new ContextPipeline({ adapters: [tracing(instructionsAdapter), historyAdapter, notes] })
    const window = windowOf(history)
    const built = await pipeline.build(input(), window.messages, window.tokens)
    expect(order).toEqual(['instructions', 'notes'])
    expect(built.request.messages).toEqual([
      { role: 'system', content: 'You are helpful.\n\nRuntime notes: the user is in Paris.' },
      ...history,
      { role: 'user', content: 'Recalled: the user likes short answers.' },
    ])
    expect(pipeline.adapters.map((adapter) => adapter.name)).toEqual(['instructions', 'history', 'notes'])
  })

  it('counts tokens as window + system text + extra messages, matching a full recount', async () => {
    const extra: ModelMessage = { role: 'user', content: 'Recalled memory about invoices and March.' }
    const pipeline = new ContextPipeline({
      adapters: [instructionsAdapter, historyAdapter, { name: 'memory', apply: (draft) => void draft.messages.push(extra) }],
    })
    const window = windowOf(history)
    const built = await pipeline.build(input(), window.messages, window.tokens)
    const systemText = 'You are helpful.'
    expect(built.tokens).toBe(countMessagesTokens(history) + countMessagesTokens([extra]) + estimateTokenizer.count(systemText) + 4)
    expect(built.tokens).toBe(countMessagesTokens(built.request.messages))
  })

  it('a custom adapter placed before history puts its messages first', async () => {
    const pipeline = new ContextPipeline({
      adapters: [{ name: 'preamble', apply: (draft) => void draft.messages.push({ role: 'user', content: 'preamble' }) }, historyAdapter],
    })
    const window = windowOf(history)
    const built = await pipeline.build(input({ instructions: undefined }), window.messages, window.tokens)
    expect(built.request.messages).toEqual([{ role: 'user', content: 'preamble' }, ...history])
  })

  it('appends the history window when no history adapter is configured, and omits an empty system message', async () => {
    const pipeline = new ContextPipeline()
    const window = windowOf(history)
    const built = await pipeline.build(input(), window.messages, window.tokens)
    expect(built.request.messages).toEqual(history)
    expect(built.tokens).toBe(window.tokens)
    expect(built.request).not.toHaveProperty('tools')
  })

  it('never mutates the window messages it is given', async () => {
    const pipeline = new ContextPipeline({
      adapters: [historyAdapter, { name: 'tail', apply: (draft) => void draft.messages.push({ role: 'user', content: 'tail' }) }],
    })
    const window = windowOf(history)
    const before = [...window.messages]
    await pipeline.build(input(), window.messages, window.tokens)
    await pipeline.build(input(), window.messages, window.tokens)
    expect(window.messages).toEqual(before)
  })

  it("a growing window reuses the last request array: the new messages and this build's adapter tail are added, the last tail is cut", async () => {
    let step = 0
    const pipeline = new ContextPipeline({
      adapters: [instructionsAdapter, historyAdapter, { name: 'tail', apply: (draft) => void draft.messages.push({ role: 'user', content: `tail ${step}` }) }],
    })
    const window = windowOf(history)
    step = 1
    const first = await pipeline.build(input(), window.messages, window.tokens)
    const system: ModelMessage = { role: 'system', content: 'You are helpful.' }
    expect(first.request.messages).toEqual([system, ...history, { role: 'user', content: 'tail 1' }])
    const answer: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'Rain.' }] }
    window.add([{ kind: 'message', message: answer, sessionId: 's', seq: 4, createdAt: 0 }])
    step = 2
    const second = await pipeline.build(input(), window.messages, window.tokens)
    expect(second.request.messages).toBe(first.request.messages)
    expect(second.request.messages).toEqual([system, ...history, answer, { role: 'user', content: 'tail 2' }])
    expect(second.tokens).toBe(countMessagesTokens(second.request.messages))
  })

  it("every build equals a fresh pipeline's over the same inputs, across appends, compactions, instruction changes and adapters before the history", async () => {
    let preamble: ModelMessage | undefined
    let tail = 0
    const adapters: ContextAdapter[] = [
      { name: 'preamble', apply: (draft) => void (preamble && draft.messages.push(preamble)) },
      instructionsAdapter,
      historyAdapter,
      { name: 'tail', apply: (draft) => void (tail % 3 && draft.messages.push({ role: 'user', content: `tail ${tail}` })) },
    ]
    const pipeline = new ContextPipeline({ adapters })
    const window = windowOf(history)
    let seq = history.length
    let instructions = 'You are helpful.'
    const reused = new Set<ModelMessage[]>()
    for (let round = 0; round < 60; round++) {
      tail = round
      // A fixed mix of what happens between two steps: appends (most rounds), a compaction, new instructions,
      // a preamble message (the same object, or a new one) before the history.
      const append = () => {
        seq++
        window.add([
          { kind: 'message', message: { role: seq % 2 ? 'assistant' : 'user', content: `message ${seq}` } as ModelMessage, sessionId: 's', seq, createdAt: 0 },
        ])
      }
      if (round % 11 === 5) {
        // The window loses its head, then grows past its old length before the next build.
        const length = window.messages.length
        window.applyCompaction({ strategy: 'truncate', throughSeq: seq - 2 })
        while (window.messages.length <= length) append()
      }
      if (round % 13 === 7) instructions = `You are helpful (${round}).`
      if (round % 17 === 3) preamble = { role: 'user', content: `preamble ${round}` }
      if (round % 4 !== 0) append()
      const built = await pipeline.build(input({ instructions }), window.messages, window.tokens)
      const fresh = await new ContextPipeline({ adapters }).build(input({ instructions }), window.messages, window.tokens)
      expect(built.request.messages, `round ${round}`).toEqual(fresh.request.messages)
      expect(built.tokens, `round ${round}`).toBe(fresh.tokens)
      reused.add(built.request.messages)
    }
    // Most builds reused the array; a compaction, an instruction change or a new preamble started a new one.
    expect(reused.size).toBeGreaterThan(1)
    expect(reused.size).toBeLessThan(20)
  })

  it('re-reads a live adapter iterable on every build', async () => {
    const live: ContextAdapter[] = [historyAdapter]
    const pipeline = new ContextPipeline({ adapters: { [Symbol.iterator]: () => live[Symbol.iterator]() } })
    const window = windowOf(history)
    expect((await pipeline.build(input(), window.messages, window.tokens)).request.messages).toHaveLength(3)
    live.push({ name: 'late', apply: (draft) => void draft.system.push('late section') })
    const built = await pipeline.build(input(), window.messages, window.tokens)
    expect(built.request.messages[0]).toEqual({ role: 'system', content: 'late section' })
  })

  it('takes the adapters from a function on every build, an async adapter in the middle included', async () => {
    let current: ContextAdapter[] = [historyAdapter]
    const pipeline = new ContextPipeline({ adapters: () => current })
    const window = windowOf(history)
    expect((await pipeline.build(input(), window.messages, window.tokens)).request.messages).toHaveLength(3)
    current = [
      { name: 'first', apply: (draft) => void draft.system.push('one') },
      { name: 'slow', apply: async (draft) => void draft.system.push(await Promise.resolve('two')) },
      historyAdapter,
      { name: 'last', apply: (draft) => void draft.messages.push({ role: 'user', content: 'after' }) },
    ]
    const built = await pipeline.build(input(), window.messages, window.tokens)
    expect(built.request.messages[0]).toEqual({ role: 'system', content: 'one\n\ntwo' })
    expect(built.request.messages.at(-1)).toEqual({ role: 'user', content: 'after' })
    expect(pipeline.adapters.map((adapter) => adapter.name)).toEqual(['first', 'slow', 'history', 'last'])
  })

  it('awaits async adapters that read the input', async () => {
    const pipeline = new ContextPipeline({
      adapters: [
        {
          name: 'async',
          async apply(draft, buildInput) {
            await new Promise((resolve) => setTimeout(resolve, 1))
            draft.system.push(`Agent ${buildInput.agentName}, step ${buildInput.step}`)
          },
        },
      ],
    })
    const built = await pipeline.build(input({ step: 4 }), [], 0)
    expect(built.request.messages[0]).toEqual({ role: 'system', content: 'Agent assistant, step 4' })
  })

  it('buildNow returns the request itself while every adapter is synchronous, and after an asynchronous adapter a promise that applies the rest in order', async () => {
    const order: string[] = []
    const sync = (name: string): ContextAdapter => ({
      name,
      apply: (draft) => {
        order.push(name)
        draft.messages.push({ role: 'user', content: `from ${name}` })
      },
    })
    const window = windowOf(history)
    const allSync = new ContextPipeline({ adapters: [instructionsAdapter, sync('before'), historyAdapter, sync('after')] })
    const now = allSync.buildNow(input(), window.messages, window.tokens)
    expect(now).not.toBeInstanceOf(Promise)
    const fromBuild = await new ContextPipeline({ adapters: [instructionsAdapter, sync('before'), historyAdapter, sync('after')] }).build(
      input(),
      window.messages,
      window.tokens,
    )
    expect(now).toEqual(fromBuild)
    order.length = 0
    const asyncAdapter: ContextAdapter = {
      name: 'slow',
      async apply(draft) {
        await new Promise((resolve) => setTimeout(resolve, 1))
        order.push('slow')
        draft.messages.push({ role: 'user', content: 'from slow' })
      },
    }
    const mixed = new ContextPipeline({ adapters: [sync('first'), asyncAdapter, historyAdapter, sync('last')] })
    const pending = mixed.buildNow(input(), window.messages, window.tokens)
    expect(pending).toBeInstanceOf(Promise)
    // Nothing after the asynchronous adapter ran before it settled.
    expect(order).toEqual(['first'])
    const built = await pending
    expect(order).toEqual(['first', 'slow', 'last'])
    expect(built.request.messages.map((message) => message.content)).toEqual([
      'from first',
      'from slow',
      ...history.map((message) => message.content),
      'from last',
    ])
    expect(built.tokens).toBe(countMessagesTokens(built.request.messages, estimateTokenizer))
    // A synchronous throw is thrown by buildNow, and rejects build().
    const failing = new ContextPipeline({
      adapters: [
        {
          name: 'broken',
          apply: () => {
            throw new Error('broken adapter')
          },
        },
      ],
    })
    expect(() => failing.buildNow(input(), [], 0)).toThrow('broken adapter')
    await expect(failing.build(input(), [], 0)).rejects.toThrow('broken adapter')
  })

  it('sends the tools and counts each tool spec once (cached by identity, across tool arrays)', async () => {
    const tokenizer = countingTokenizer()
    const pipeline = new ContextPipeline({ tokenizer })
    const tools = [tool]
    const first = await pipeline.build(input({ instructions: undefined, tools }), [], 0)
    expect(first.request.tools).toBe(tools)
    expect(first.tokens).toBe(toolsTokens(tools))
    const toolCounts = () => tokenizer.calls.filter((text) => text === JSON.stringify(tool)).length
    expect(toolCounts()).toBe(1)
    const second = await pipeline.build(input({ instructions: undefined, tools }), [], 0)
    expect(second.tokens).toBe(first.tokens)
    expect(toolCounts()).toBe(1)
    // A new array of the same spec (another run's scope) is summed again, but the spec is not re-counted.
    const third = await pipeline.build(input({ instructions: undefined, tools: [tool] }), [], 0)
    expect(third.tokens).toBe(first.tokens)
    expect(toolCounts()).toBe(1)
    // Another spec is counted.
    const other: ToolSpecification = { name: 'other', description: 'Another tool', inputSchema: { type: 'object' } }
    const fourth = await pipeline.build(input({ instructions: undefined, tools: [tool, other] }), [], 0)
    expect(fourth.tokens).toBe(toolsTokens([tool, other]))
    expect(fourth.tokens).toBeGreaterThan(first.tokens)
  })

  it('an adapter that pushes a tool adds it to this request only, never to the caller’s tool list', async () => {
    const extraTool: ToolSpecification = { name: 'recall', description: 'Recall memories', inputSchema: { type: 'object' } }
    const pipeline = new ContextPipeline({ adapters: [{ name: 'memory-tools', apply: (draft) => void draft.tools.push(extraTool) }] })
    const tools = [tool]
    const first = await pipeline.build(input({ instructions: undefined, tools }), [], 0)
    const second = await pipeline.build(input({ instructions: undefined, tools }), [], 0)
    expect(tools).toEqual([tool])
    expect(first.request.tools).toEqual([tool, extraTool])
    expect(second.request.tools).toEqual([tool, extraTool])
    expect(second.tokens).toBe(toolsTokens([tool, extraTool]))
  })

  it('uses the tokenizer it is given for system text and extra messages', async () => {
    const fixed: Tokenizer = { name: 'fixed', count: () => 10 }
    const pipeline = new ContextPipeline({
      tokenizer: fixed,
      adapters: [instructionsAdapter, { name: 'extra', apply: (draft) => void draft.messages.push({ role: 'user', content: 'x' }) }],
    })
    expect(pipeline.tokenizer).toBe(fixed)
    const built = await pipeline.build(input(), [], 0)
    // system: 10 + 4; extra message: 4 overhead + 10.
    expect(built.tokens).toBe(28)
  })
})

/** The pipeline's count of a tool list: each spec's JSON, plus one per spec and two for the list. */
function toolsTokens(tools: ToolSpecification[]): number {
  return 2 + tools.reduce((sum, spec) => sum + estimateTokenizer.count(JSON.stringify(spec)) + 1, 0)
}

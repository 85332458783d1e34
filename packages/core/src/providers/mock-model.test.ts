import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { ProviderError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { ModelRequest, StreamPart } from '../spec/language-model.js'
import { mockModel } from './mock-model.js'

const request = (text = 'hi'): ModelRequest => ({ messages: [{ role: 'user', content: text }] })

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

function deltas(parts: StreamPart[], type: 'text-delta' | 'reasoning-delta'): string[] {
  return parts.flatMap((part) => (part.type === type ? [part.delta] : []))
}

describe('mockModel', () => {
  it('implements the v1 spec with overridable provider, model id and capabilities', () => {
    const model = mockModel([], { provider: 'acme', modelId: 'm1', capabilities: { contextWindow: 1000, tools: false } })
    expect(model.specificationVersion).toBe('v1')
    expect(model.provider).toBe('acme')
    expect(model.modelId).toBe('m1')
    expect(model.capabilities.contextWindow).toBe(1000)
    expect(model.capabilities.tools).toBe(false)
    expect(model.capabilities.maxOutputTokens).toBe(8192)
    const defaults = mockModel([])
    expect(defaults.provider).toBe('mock')
    expect(defaults.modelId).toBe('mock-model')
  })

  it('streams text as deltas of chunkSize characters, then a stop finish with usage', async () => {
    const model = mockModel([{ text: 'abcdefghij', chunkSize: 3 }])
    const parts = await collect(model.stream(request()))
    expect(deltas(parts, 'text-delta')).toEqual(['abc', 'def', 'ghi', 'j'])
    const finish = parts.at(-1)
    expect(finish).toEqual({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 3 } })
  })

  it('uses 8-character deltas by default and treats chunkSize below 1 as 1', async () => {
    const parts = await collect(mockModel([{ text: 'x'.repeat(20) }]).stream(request()))
    expect(deltas(parts, 'text-delta').map((delta) => delta.length)).toEqual([8, 8, 4])
    const tiny = await collect(mockModel([{ text: 'abc', chunkSize: 0 }]).stream(request()))
    expect(deltas(tiny, 'text-delta')).toEqual(['a', 'b', 'c'])
  })

  it('streams reasoning before text', async () => {
    const parts = await collect(mockModel([{ reasoning: 'think', text: 'answer', chunkSize: 100 }]).stream(request()))
    expect(parts.map((part) => part.type)).toEqual(['reasoning-delta', 'text-delta', 'finish'])
    expect(deltas(parts, 'reasoning-delta')).toEqual(['think'])
  })

  it('streams tool calls as start, JSON argument deltas and end, with generated ids and a tool-calls finish', async () => {
    const args = { path: '/a/very/long/path/to/some/file.txt', lines: [1, 2, 3], nested: { ok: true } }
    const model = mockModel([
      {
        toolCalls: [
          { name: 'read', args },
          { name: 'noop', args: {} },
        ],
      },
    ])
    const parts = await collect(model.stream(request()))
    const starts = parts.filter((part) => part.type === 'tool-call-start')
    expect(starts).toEqual([
      { type: 'tool-call-start', id: 'call_0_0', name: 'read' },
      { type: 'tool-call-start', id: 'call_0_1', name: 'noop' },
    ])
    const readDeltas = parts.flatMap((part) => (part.type === 'tool-call-delta' && part.id === 'call_0_0' ? [part.argsDelta] : []))
    expect(readDeltas.length).toBeGreaterThan(1)
    expect(readDeltas.every((delta) => delta.length <= 16)).toBe(true)
    expect(JSON.parse(readDeltas.join(''))).toEqual(args)
    // Each call is closed before the next one starts.
    const order = parts.filter((part) => part.type !== 'tool-call-delta').map((part) => ('id' in part ? `${part.type}:${part.id}` : part.type))
    expect(order).toEqual(['tool-call-start:call_0_0', 'tool-call-end:call_0_0', 'tool-call-start:call_0_1', 'tool-call-end:call_0_1', 'finish'])
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' })
  })

  it('keeps explicit call ids and passes string arguments through verbatim (even invalid JSON)', async () => {
    const parts = await collect(mockModel([{ toolCalls: [{ name: 'broken', args: '{"a": 1', id: 'mine' }] }]).stream(request()))
    const argsText = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argsDelta] : [])).join('')
    expect(argsText).toBe('{"a": 1')
    expect(parts[0]).toEqual({ type: 'tool-call-start', id: 'mine', name: 'broken' })
  })

  it('numbers generated call ids by turn index', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'a', args: {} }] }, { toolCalls: [{ name: 'b', args: {} }] }])
    await collect(model.stream(request()))
    const parts = await collect(model.stream(request()))
    expect(parts[0]).toEqual({ type: 'tool-call-start', id: 'call_1_0', name: 'b' })
  })

  it('honours finishReason and usage overrides', async () => {
    const parts = await collect(
      mockModel([{ text: 'cut', finishReason: 'length', usage: { inputTokens: 7, outputTokens: 99, cachedInputTokens: 3, reasoningTokens: 2 } }]).stream(
        request(),
      ),
    )
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'length',
      usage: { inputTokens: 7, outputTokens: 99, cachedInputTokens: 3, reasoningTokens: 2 },
    })
  })

  it('records every request in calls and counts consumed turns', async () => {
    const model = mockModel([{ text: 'one' }, { text: 'two' }])
    expect(model.turnIndex).toBe(0)
    const first = request('first')
    const second = request('second')
    await collect(model.stream(first))
    await collect(model.stream(second))
    expect(model.calls).toEqual([first, second])
    expect(model.turnIndex).toBe(2)
    // Recorded as sent: the runtime appends the next step's messages to the array it sent, which the record must not show.
    first.messages.push({ role: 'user', content: 'appended after the call' })
    expect(model.calls[0]!.messages).toEqual([{ role: 'user', content: 'first' }])
  })

  it('accepts a script function that receives the request and the turn index', async () => {
    const seen: Array<[string, number]> = []
    const model = mockModel(async (received, index) => {
      const content = received.messages[0]?.content
      seen.push([typeof content === 'string' ? content : '', index])
      return { text: `reply ${index} to ${content as string}`, chunkSize: 100 }
    })
    const a = await collect(model.stream(request('a')))
    const b = await collect(model.stream(request('b')))
    expect(deltas(a, 'text-delta')).toEqual(['reply 0 to a'])
    expect(deltas(b, 'text-delta')).toEqual(['reply 1 to b'])
    expect(seen).toEqual([
      ['a', 0],
      ['b', 1],
    ])
  })

  it('running past the script throws an error naming the turn index and the script length', async () => {
    const model = mockModel([{ text: 'only' }])
    await collect(model.stream(request()))
    let caught: unknown
    try {
      await collect(model.stream(request()))
    } catch (error) {
      caught = error
    }
    expect(SpindleError.isInstance(caught)).toBe(true)
    expect((caught as SpindleError).code).toBe('script_exhausted')
    expect((caught as Error).message).toContain('turn index 1')
    expect((caught as Error).message).toContain('1 turn(s)')
    expect(model.calls).toHaveLength(2)
  })

  it('an error turn without output throws before yielding any part', async () => {
    const failure = new Error('upstream down')
    const parts: StreamPart[] = []
    let caught: unknown
    try {
      for await (const part of mockModel([{ error: failure }]).stream(request())) parts.push(part)
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(failure)
    expect(parts).toEqual([])
  })

  it('an error turn given as { status } becomes a ProviderError with that status and retryability', async () => {
    const catchFrom = async (error: unknown) => {
      try {
        await collect(mockModel([{ error }]).stream(request()))
      } catch (caught) {
        return caught
      }
      throw new Error('expected the stream to throw')
    }
    const overloaded = await catchFrom({ status: 529, message: 'overloaded' })
    expect(overloaded).toBeInstanceOf(ProviderError)
    expect((overloaded as ProviderError).status).toBe(529)
    expect((overloaded as ProviderError).isRetryable).toBe(true)
    expect((overloaded as Error).message).toBe('overloaded')
    const badRequest = await catchFrom({ status: 400 })
    expect((badRequest as ProviderError).isRetryable).toBe(false)
    expect((badRequest as Error).message).toBe('mock provider error 400')
    const plain = await catchFrom('boom')
    expect(plain).toBeInstanceOf(ProviderError)
    expect((plain as Error).message).toBe('boom')
  })

  it('an error turn after text yields the text deltas, then an error part, and no finish', async () => {
    const failure = new Error('cut mid-stream')
    const parts = await collect(mockModel([{ text: 'partial answer', chunkSize: 7, error: failure }]).stream(request()))
    expect(parts).toEqual([
      { type: 'text-delta', delta: 'partial' },
      { type: 'text-delta', delta: ' answer' },
      { type: 'error', error: failure },
    ])
  })

  it('waits delayMs before the first part', async () => {
    const started = performance.now()
    const parts = await collect(mockModel([{ text: 'late', delayMs: 60 }]).stream(request()))
    expect(performance.now() - started).toBeGreaterThanOrEqual(50)
    expect(deltas(parts, 'text-delta')).toEqual(['late'])
  })

  it('an abort during delayMs rejects with the signal reason and yields nothing', async () => {
    const controller = new AbortController()
    const reason = new Error('user cancelled')
    const parts: StreamPart[] = []
    const started = performance.now()
    setTimeout(() => controller.abort(reason), 10)
    let caught: unknown
    try {
      for await (const part of mockModel([{ text: 'never', delayMs: 5_000 }]).stream(request(), { signal: controller.signal })) parts.push(part)
    } catch (error) {
      caught = error
    }
    expect(caught).toBe(reason)
    expect(parts).toEqual([])
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('an abort between chunks stops the stream after the parts already sent', async () => {
    const controller = new AbortController()
    const parts: StreamPart[] = []
    let caught: unknown
    try {
      for await (const part of mockModel([{ text: 'aaaabbbbccccdddd', chunkSize: 4, delayMs: 200 }]).stream(request(), { signal: controller.signal })) {
        parts.push(part)
        if (parts.length === 1) controller.abort(new Error('stop now'))
      }
    } catch (error) {
      caught = error
    }
    expect((caught as Error).message).toBe('stop now')
    expect(parts).toEqual([{ type: 'text-delta', delta: 'aaaa' }])
  })

  it('an already aborted signal fails at once', async () => {
    const controller = new AbortController()
    controller.abort(new Error('already'))
    await expect(collect(mockModel([{ text: 'x' }]).stream(request(), { signal: controller.signal }))).rejects.toThrow('already')
  })
})

describe('mockModel recordCalls', () => {
  it('keeps no requests when recordCalls is false, and still counts turns', async () => {
    const model = mockModel([{ text: 'a' }, { text: 'b' }], { recordCalls: false })
    for (let i = 0; i < 2; i++) for await (const _part of model.stream({ messages: [{ role: 'user', content: 'x' }] })) void _part
    expect(model.calls).toEqual([])
    expect(model.turnIndex).toBe(2)
  })

  it('takes one turn per call: reads requested together get the parts in order, and a stopped stream ends', async () => {
    const model = mockModel([{ text: 'abcdefghij', chunkSize: 4 }, { text: 'next' }])
    const iterator = model.stream(request())[Symbol.asyncIterator]()
    const reads = await Promise.all([iterator.next(), iterator.next(), iterator.next()])
    expect(reads.map((read) => (read.done ? 'done' : read.value.type === 'text-delta' ? read.value.delta : read.value.type))).toEqual(['abcd', 'efgh', 'ij'])
    await expect(iterator.return!()).resolves.toEqual({ done: true, value: undefined })
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
    expect(model.turnIndex).toBe(1)
    expect(deltas(await collect(model.stream(request())), 'text-delta')).toEqual(['next'])
  })

  it('a script may answer with any thenable, and after a failed read the stream ends', async () => {
    // A promise of another realm (a vm context) is not an instance of this realm's Promise.
    const foreign = runInNewContext('Promise.resolve({ text: "from a thenable" })') as Promise<{ text: string }>
    expect(foreign instanceof Promise).toBe(false)
    const model = mockModel(() => foreign)
    expect(deltas(await collect(model.stream(request())), 'text-delta').join('')).toBe('from a thenable')
    const failing = mockModel([])
    const iterator = failing.stream(request())[Symbol.asyncIterator]()
    const [first, second] = await Promise.allSettled([iterator.next(), iterator.next()])
    expect(first.status).toBe('rejected')
    expect(second).toEqual({ status: 'fulfilled', value: { done: true, value: undefined } })
  })
})

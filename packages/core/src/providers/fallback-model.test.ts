import { describe, expect, it } from 'vitest'
import { AbortedError, ConfigurationError, ContextOverflowError, ProviderError, StreamInterruptedError } from '../errors/errors.js'
import type { LanguageModel, ModelRequest, StreamPart } from '../spec/language-model.js'
import { fallbackModel } from './fallback-model.js'
import { mockModel, type MockTurn } from './mock-model.js'

const request: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] }

async function run(model: LanguageModel, signal?: AbortSignal): Promise<{ parts: StreamPart[]; error: unknown }> {
  const parts: StreamPart[] = []
  try {
    for await (const part of model.stream(request, { signal })) parts.push(part)
    return { parts, error: undefined }
  } catch (error) {
    return { parts, error }
  }
}

const textOf = (parts: StreamPart[]) => parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')

/** A model that yields the given parts, then throws `error` if given. */
function scripted(name: string, parts: StreamPart[], error?: unknown): LanguageModel & { calls: number } {
  const model = {
    specificationVersion: 'v1' as const,
    provider: name,
    modelId: `${name}-model`,
    capabilities: mockModel([]).capabilities,
    calls: 0,
    async *stream(): AsyncIterable<StreamPart> {
      model.calls++
      yield* parts
      if (error !== undefined) throw error
    },
  }
  return model
}

function chain(...turns: MockTurn[]) {
  const models = turns.map((turn, index) => mockModel([turn], { provider: `p${index}`, modelId: `m${index}` }))
  return { models, model: fallbackModel(models) }
}

describe('fallbackModel', () => {
  it('needs at least one model, and a chain of one is that model itself', () => {
    expect(() => fallbackModel([])).toThrow(ConfigurationError)
    const only = mockModel([])
    expect(fallbackModel([only])).toBe(only)
  })

  it('names the chain and takes the first model capabilities', () => {
    const { model } = chain({ text: 'a' }, { text: 'b' })
    expect(model.provider).toBe('fallback')
    expect(model.modelId).toBe('p0:m0 > p1:m1')
    expect(model.capabilities).toEqual(mockModel([]).capabilities)
  })

  it('uses the first model when it works and never calls the others', async () => {
    const { models, model } = chain({ text: 'first' }, { text: 'second' })
    const { parts, error } = await run(model)
    expect(error).toBeUndefined()
    expect(textOf(parts)).toBe('first')
    expect(models[1]!.calls).toHaveLength(0)
  })

  it('moves on after a retryable error thrown before any output, passing the same request', async () => {
    const { models, model } = chain({ error: { status: 503 } }, { error: { status: 429 } }, { text: 'third' })
    const { parts, error } = await run(model)
    expect(error).toBeUndefined()
    expect(textOf(parts)).toBe('third')
    expect(models.map((entry) => entry.calls.length)).toEqual([1, 1, 1])
    expect(models[2]!.calls[0]).toEqual(request)
  })

  it('moves on after a retryable in-band error part before any output', async () => {
    const first = scripted('a', [{ type: 'error', error: new StreamInterruptedError('cut') }])
    const second = scripted('b', [
      { type: 'text-delta', delta: 'ok' },
      { type: 'finish', finishReason: 'stop' },
    ])
    const { parts, error } = await run(fallbackModel([first, second]))
    expect(error).toBeUndefined()
    expect(parts).toEqual([
      { type: 'response-metadata', provider: second.provider, modelId: second.modelId },
      { type: 'text-delta', delta: 'ok' },
      { type: 'finish', finishReason: 'stop' },
    ])
  })

  it('response metadata is not output: a model that fails right after it is still replaced, and its metadata is not shown', async () => {
    const first = scripted('a', [{ type: 'response-metadata', id: 'resp_a' }], new ProviderError('overloaded', { status: 529 }))
    const second = scripted('b', [
      { type: 'response-metadata', id: 'resp_b' },
      { type: 'text-delta', delta: 'from b' },
      { type: 'finish', finishReason: 'stop' },
    ])
    const { parts, error } = await run(fallbackModel([first, second]))
    expect(error).toBeUndefined()
    expect(second.calls).toBe(1)
    // The link that answered is named first; its own metadata follows (and may name the model more exactly).
    expect(parts).toEqual([
      { type: 'response-metadata', provider: second.provider, modelId: second.modelId },
      { type: 'response-metadata', id: 'resp_b' },
      { type: 'text-delta', delta: 'from b' },
      { type: 'finish', finishReason: 'stop' },
    ])
  })

  it('never moves on once output was produced: a thrown error is rethrown as is', async () => {
    const failure = new ProviderError('reset', { status: 503 })
    const first = scripted('a', [{ type: 'text-delta', delta: 'half' }], failure)
    const second = scripted('b', [{ type: 'text-delta', delta: 'other' }])
    const { parts, error } = await run(fallbackModel([first, second]))
    expect(error).toBe(failure)
    expect(textOf(parts)).toBe('half')
    expect(second.calls).toBe(0)
  })

  it('never moves on once output was produced: a later error part is passed through', async () => {
    const { models, model } = chain({ text: 'partial', error: { status: 503 } }, { text: 'other' })
    const { parts, error } = await run(model)
    expect(error).toBeUndefined()
    expect(textOf(parts)).toBe('partial')
    expect(parts.at(-1)).toMatchObject({ type: 'error' })
    expect(models[1]!.calls).toHaveLength(0)
  })

  it('a tool call counts as output', async () => {
    const failure = new ProviderError('reset', { status: 500 })
    const first = scripted('a', [{ type: 'tool-call-start', id: 'c1', name: 'read' }], failure)
    const second = scripted('b', [])
    const { error } = await run(fallbackModel([first, second]))
    expect(error).toBe(failure)
    expect(second.calls).toBe(0)
  })

  it('does not move on for a non-retryable classified error such as a context overflow', async () => {
    const overflow = new ContextOverflowError('too long')
    const first = scripted('a', [], overflow)
    const second = scripted('b', [{ type: 'text-delta', delta: 'x' }])
    const { error } = await run(fallbackModel([first, second]))
    expect(error).toBe(overflow)
    expect(second.calls).toBe(0)
  })

  it('does not move on after an abort', async () => {
    const controller = new AbortController()
    const reason = new AbortedError('cancelled by user')
    const first: LanguageModel = {
      ...scripted('a', []),
      async *stream() {
        controller.abort(reason)
        yield* [] as StreamPart[]
        throw new ProviderError('connection closed', { status: 503 })
      },
    }
    const second = scripted('b', [{ type: 'text-delta', delta: 'x' }])
    const { error } = await run(fallbackModel([first, second]), controller.signal)
    expect((error as Error).message).toBe('connection closed')
    expect(second.calls).toBe(0)
  })

  it('moves on after an unclassified error (a plain Error, e.g. a network failure)', async () => {
    const first = scripted('a', [], new TypeError('fetch failed'))
    const second = scripted('b', [{ type: 'text-delta', delta: 'ok' }])
    const { parts, error } = await run(fallbackModel([first, second]))
    expect(error).toBeUndefined()
    expect(textOf(parts)).toBe('ok')
  })

  it('moves on after a generic non-retryable provider error (code "provider", e.g. a 401 at one provider)', async () => {
    // Kept deliberately: the chain exists for a provider that is down or misconfigured; only errors with a
    // more specific non-retryable code (context overflow, abort, configuration…) stop the chain.
    const { models, model } = chain({ error: { status: 401 } }, { text: 'second' })
    const { parts, error } = await run(model)
    expect(error).toBeUndefined()
    expect(textOf(parts)).toBe('second')
    expect(models[1]!.calls).toHaveLength(1)
  })

  it('when every model fails, throws a ProviderError whose cause is the last failure', async () => {
    const last = new ProviderError('also down', { status: 502 })
    const first = scripted('a', [], new ProviderError('down', { status: 503 }))
    const second = scripted('b', [], last)
    const { error } = await run(fallbackModel([first, second]))
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as Error).message).toContain('every model of the fallback chain failed')
    expect((error as Error).cause).toBe(last)
  })
})

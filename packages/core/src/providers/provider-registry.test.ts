import { describe, expect, it } from 'vitest'
import { ConfigurationError, NotFoundError } from '../errors/errors.js'
import type { LanguageModel, StreamPart } from '../spec/language-model.js'
import { hashEmbedding } from './hash-embedding.js'
import { mockModel } from './mock-model.js'
import { ProviderRegistry, type ProviderFactory } from './provider-registry.js'

function factory(provider: string, requested: string[] = []): ProviderFactory {
  return {
    languageModel(modelId) {
      requested.push(modelId)
      return mockModel([{ text: `${provider}/${modelId}` }], { provider, modelId })
    },
    embeddingModel: (modelId) => ({ ...hashEmbedding({ dimensions: 8 }), provider, modelId }),
  }
}

async function text(model: LanguageModel): Promise<string> {
  let result = ''
  for await (const part of model.stream({ messages: [] }) as AsyncIterable<StreamPart>) if (part.type === 'text-delta') result += part.delta
  return result
}

function caught(fn: () => unknown): Error {
  try {
    fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a throw')
}

describe('ProviderRegistry', () => {
  it('resolves "provider:model" ids through the provider factory, passing the model part only', () => {
    const requested: string[] = []
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai', requested))
    const model = registry.languageModel('openai:gpt-5.4')
    expect(model.provider).toBe('openai')
    expect(model.modelId).toBe('gpt-5.4')
    expect(requested).toEqual(['gpt-5.4'])
  })

  it('keeps everything after the first colon as the model id', () => {
    const requested: string[] = []
    const registry = new ProviderRegistry().registerProvider('ollama', factory('ollama', requested))
    registry.languageModel('ollama:llama3.1:8b')
    expect(requested).toEqual(['llama3.1:8b'])
  })

  it('prefers an exactly registered model id over a provider factory', () => {
    const requested: string[] = []
    const exact = mockModel([], { modelId: 'pinned' })
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai', requested)).registerModel('openai:gpt-5.4', exact)
    expect(registry.languageModel('openai:gpt-5.4')).toBe(exact)
    expect(requested).toEqual([])
  })

  it('resolves a bare registered model id and returns LanguageModel objects as they are', () => {
    const demo = mockModel([])
    const registry = new ProviderRegistry().registerModel('demo', demo)
    expect(registry.languageModel('demo')).toBe(demo)
    const direct = mockModel([])
    expect(registry.languageModel(direct)).toBe(direct)
  })

  it('an unknown provider is a NotFoundError listing the registered providers', () => {
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai')).registerProvider('anthropic', factory('anthropic'))
    const error = caught(() => registry.languageModel('mistral:large'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.message).toContain('"mistral"')
    expect(error.message).toContain('openai, anthropic')
  })

  it('an unknown bare model id is a NotFoundError listing the providers and the registered models', () => {
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai')).registerModel('demo', mockModel([]))
    const error = caught(() => registry.languageModel('gpt'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.message).toContain('"gpt"')
    expect(error.message).toContain('providers: openai')
    expect(error.message).toContain('demo')
    const empty = caught(() => new ProviderRegistry().languageModel(':nothing'))
    expect(empty.message).toContain('(none)')
  })

  it('rejects a duplicate provider or model, and replaceProvider swaps', () => {
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai')).registerModel('demo', mockModel([]))
    expect(() => registry.registerProvider('openai', factory('openai'))).toThrow(ConfigurationError)
    expect(() => registry.registerModel('demo', mockModel([]))).toThrow(ConfigurationError)
    registry.replaceProvider('openai', factory('replaced'))
    expect(registry.languageModel('openai:x').provider).toBe('replaced')
  })

  it('has() answers for exact models and for ids whose provider is registered', () => {
    const registry = new ProviderRegistry().registerProvider('openai', factory('openai')).registerModel('demo', mockModel([]))
    expect(registry.has('demo')).toBe(true)
    expect(registry.has('openai:anything')).toBe(true)
    expect(registry.has('anthropic:claude')).toBe(false)
    // A bare provider name is not a model id: has() agrees with languageModel(), which refuses it.
    expect(registry.has('openai')).toBe(false)
    expect(() => registry.languageModel('openai')).toThrow(NotFoundError)
    expect(registry.providerNames()).toEqual(['openai'])
    expect(registry.modelIds()).toEqual(['demo'])
  })

  it('an array id resolves to a fallback chain over the resolved models', async () => {
    const registry = new ProviderRegistry()
      .registerModel('down', mockModel([{ error: { status: 503 } }], { provider: 'a', modelId: 'down' }))
      .registerProvider('b', factory('b'))
    const chain = registry.languageModel(['down', 'b:up'])
    expect(chain.provider).toBe('fallback')
    expect(chain.modelId).toBe('a:down > b:up')
    expect(await text(chain)).toBe('b/up')
    // An unknown id inside the chain fails at resolution time, not at the first call.
    expect(() => registry.languageModel(['down', 'zzz:model'])).toThrow(NotFoundError)
  })

  it('resolves embedding models: exact id, provider factory, object; unknown ones are NotFoundError', () => {
    const local = hashEmbedding({ dimensions: 4 })
    const registry = new ProviderRegistry().registerEmbeddingModel('local', local).registerProvider('openai', factory('openai'))
    expect(registry.embeddingModel('local')).toBe(local)
    expect(registry.embeddingModel(local)).toBe(local)
    expect(registry.embeddingModel('openai:text-embedding-3-small').modelId).toBe('text-embedding-3-small')
    expect(() => registry.embeddingModel('cohere:embed')).toThrow(NotFoundError)
    const noEmbeddings = new ProviderRegistry().registerProvider('chat-only', { languageModel: () => mockModel([]) })
    expect(() => noEmbeddings.embeddingModel('chat-only:x')).toThrow(/no embedding model "chat-only:x"/)
  })
})

// The embeddings endpoint as a Spindle EmbeddingModel (`openai.embedding('text-embedding-3-small')`),
// with the same error mapping and bounded retries as the language models.
import { AbortedError, type EmbeddingModel } from '@spindle/core'
import { wellFormed } from '@spindle/core/plugin-kit'
import { mapOpenAIError } from '../errors/map-openai-error.js'
import type { ResolvedProviderSettings } from '../openai-settings.js'
import { retryDelay, sleep } from '../streaming/retry-policy.js'

/** Settings of an OpenAI embedding model: the vector size (`dimensions`) and the largest batch per request. */
export interface OpenAIEmbeddingSettings {
  /** Output dimensions; sent to the API (text-embedding-3 models can shorten vectors). */
  dimensions?: number
  /** Texts per request (default 2048, the API's limit). */
  maxBatchSize?: number
}

const knownDimensions: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
}

export class OpenAIEmbeddingModel implements EmbeddingModel {
  readonly specificationVersion = 'v1' as const
  readonly provider: string
  readonly modelId: string
  readonly maxBatchSize: number
  #dimensions: number
  readonly #settings: ResolvedProviderSettings
  readonly #requestedDimensions: number | undefined

  constructor(modelId: string, settings: ResolvedProviderSettings, embeddingSettings: OpenAIEmbeddingSettings = {}) {
    this.provider = settings.name
    this.modelId = modelId
    this.#settings = settings
    this.#requestedDimensions = embeddingSettings.dimensions
    this.#dimensions = embeddingSettings.dimensions ?? knownDimensions[modelId] ?? 0
    this.maxBatchSize = embeddingSettings.maxBatchSize ?? 2048
  }

  /** Vector size: from the settings or the known models, else learned from the first response (0 until then). */
  get dimensions(): number {
    return this.#dimensions
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<{ embeddings: number[][]; usage?: { tokens: number } }> {
    if (texts.length === 0) return { embeddings: [] }
    const client = this.#settings.client()
    const errors = this.#settings.errors()
    const embeddings: number[][] = []
    let tokens = 0
    for (let start = 0; start < texts.length; start += this.maxBatchSize) {
      const batch = wellFormed(texts.slice(start, start + this.maxBatchSize))
      for (let attempt = 0; ; attempt++) {
        if (options.signal?.aborted) throw new AbortedError(`[spindle/${this.provider}] the embedding request was aborted`)
        try {
          const response = await client.embeddings.create(
            // `float` explicitly: without it the SDK asks for base64 and decodes it itself.
            { model: this.modelId, input: batch, encoding_format: 'float', ...(this.#requestedDimensions ? { dimensions: this.#requestedDimensions } : {}) },
            { maxRetries: 0, ...(options.signal ? { signal: options.signal } : {}) },
          )
          const ordered = [...response.data].sort((a, b) => a.index - b.index)
          for (const item of ordered) embeddings.push(item.embedding)
          if (!this.#dimensions && ordered[0]) this.#dimensions = ordered[0].embedding.length
          tokens += response.usage?.prompt_tokens ?? 0
          break
        } catch (caught) {
          const error = options.signal?.aborted
            ? new AbortedError(`[spindle/${this.provider}] the embedding request was aborted`)
            : mapOpenAIError(caught, { ...errors, attempts: attempt + 1 })
          const delay = retryDelay(error, attempt, { ...this.#settings.retry, maxRetries: this.#settings.maxRetries })
          if (delay === undefined) throw error
          await sleep(delay, options.signal, this.provider)
        }
      }
    }
    return { embeddings, usage: { tokens } }
  }
}

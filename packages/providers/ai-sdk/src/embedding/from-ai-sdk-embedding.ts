// fromAiSdkEmbedding: an AI SDK embedding model (spec v3 or v2) becomes a Spindle EmbeddingModel, its errors mapped
// to core's ProviderError family and its batch limit respected.
import { AbortedError, ConfigurationError, createRedactor, type EmbeddingModel } from '@spindle/core'
import type { EmbeddingModelV2, EmbeddingModelV3 } from '@ai-sdk/provider'
import { mapAiSdkError } from '../errors/map-ai-sdk-error.js'

/** An AI SDK embedding model of a specification version that runs on Node 20. */
export type AiSdkEmbeddingModel = EmbeddingModelV3 | EmbeddingModelV2<string>

/**
 * Options of `fromAiSdkEmbedding(model, options)`. `dimensions` is required: stores create their vector columns
 * before the first call. `fromAiSdkEmbedding` throws a `ConfigurationError` when it is not a positive integer.
 */
export interface FromAiSdkEmbeddingOptions {
  /** The vectors' length (Spindle's stores need it up front). */
  dimensions: number
  /** Provider name in errors (default: the AI SDK provider up to its first dot). */
  provider?: string
  /** Texts per call when the model does not say (`maxEmbeddingsPerCall`). */
  maxBatchSize?: number
  /** Secrets to keep out of error messages. */
  secrets?: string[]
}

/**
 * Wraps an AI SDK embedding model as a Spindle EmbeddingModel (for `@spindle/context-memory`, embedding stores…).
 *
 * @example
 * const embeddings = fromAiSdkEmbedding(google.textEmbeddingModel('text-embedding-004'), { dimensions: 768 })
 */
export function fromAiSdkEmbedding(model: AiSdkEmbeddingModel, options: FromAiSdkEmbeddingOptions): EmbeddingModel {
  if (typeof model?.doEmbed !== 'function')
    throw new ConfigurationError('[spindle/ai-sdk] fromAiSdkEmbedding needs an AI SDK embedding model (an object with doEmbed)')
  if (!(Number.isInteger(options?.dimensions) && options.dimensions > 0))
    throw new ConfigurationError('[spindle/ai-sdk] fromAiSdkEmbedding: dimensions must be a positive integer (the length of the vectors)')
  const provider = options.provider ?? model.provider.split('.')[0] ?? model.provider
  const redactor = createRedactor({ secrets: options.secrets ?? [] })
  const declared = typeof model.maxEmbeddingsPerCall === 'number' && Number.isFinite(model.maxEmbeddingsPerCall) ? model.maxEmbeddingsPerCall : undefined
  const maxBatchSize = options.maxBatchSize ?? declared
  return {
    specificationVersion: 'v1',
    provider,
    modelId: model.modelId,
    dimensions: options.dimensions,
    ...(maxBatchSize !== undefined && { maxBatchSize }),
    async embed(texts, callOptions = {}) {
      const { signal } = callOptions
      const embeddings: number[][] = []
      let tokens: number | undefined
      const batch = maxBatchSize ?? Math.max(texts.length, 1)
      for (let start = 0; start < texts.length; start += batch) {
        if (signal?.aborted) throw new AbortedError(`[spindle/ai-sdk] ${provider}: the embedding request was aborted`)
        try {
          const result = await model.doEmbed({ values: texts.slice(start, start + batch), ...(signal !== undefined && { abortSignal: signal }) })
          embeddings.push(...result.embeddings)
          if (result.usage?.tokens !== undefined) tokens = (tokens ?? 0) + result.usage.tokens
        } catch (error) {
          if (signal?.aborted) throw new AbortedError(`[spindle/ai-sdk] ${provider}: the embedding request was aborted`, { cause: error })
          throw mapAiSdkError(error, { provider, redact: (text) => redactor.redact(text) })
        }
      }
      return { embeddings, ...(tokens !== undefined && { usage: { tokens } }) }
    },
  }
}

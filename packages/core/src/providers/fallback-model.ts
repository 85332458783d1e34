// A LanguageModel that tries a chain of models in order, moving on only before any output was produced.
import { ConfigurationError, ProviderError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { LanguageModel, ModelCallOptions, ModelRequest, StreamPart } from '../spec/language-model.js'

export function fallbackModel(models: LanguageModel[]): LanguageModel {
  const first = models[0]
  if (!first) throw new ConfigurationError('[spindle/core] a fallback chain needs at least one model')
  if (models.length === 1) return first
  return {
    specificationVersion: 'v1',
    provider: 'fallback',
    modelId: models.map((model) => `${model.provider}:${model.modelId}`).join(' > '),
    capabilities: first.capabilities,
    async *stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<StreamPart> {
      let lastError: unknown
      for (const model of models) {
        let produced = false
        // Response metadata is not output: it is held back until real output, so a model that fails
        // right after announcing its response can still be replaced by the next one.
        let held: StreamPart[] = []
        try {
          for await (const part of model.stream(request, options)) {
            if (!produced && part.type === 'response-metadata') {
              held.push(part)
              continue
            }
            if (part.type === 'error' && !produced) throw part.error
            produced = true
            if (held.length) {
              yield* held
              held = []
            }
            yield part
          }
          yield* held
          return
        } catch (error) {
          if (produced || options?.signal?.aborted) throw error
          if (SpindleError.isInstance(error) && !error.isRetryable && error.code !== 'provider') throw error
          lastError = error
        }
      }
      throw new ProviderError('[spindle/core] every model of the fallback chain failed', { cause: lastError })
    },
  }
}

// A LanguageModel that tries a chain of models in order, moving on only before any output was produced.
import { ConfigurationError, ProviderError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { LanguageModel, ModelCallOptions, ModelRequest, StreamPart } from '../spec/language-model.js'

/**
 * A LanguageModel that tries `models` in order, moving to the next only when one fails before producing any output
 * (a retryable error, or a provider error). The stream says which link answered (a `response-metadata` part with its
 * provider and model id, so `step.finished.response` and traces name it, not the chain).
 *
 * @example
 * const model = fallbackModel([openai('gpt-4o'), anthropic('claude-sonnet-4-5')])
 */
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
            if (!produced) yield answeredBy(model)
            produced = true
            if (held.length) {
              yield* held
              held = []
            }
            yield part
          }
          if (!produced) yield answeredBy(model)
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

/** The link of the chain that answered: said before its own response metadata, which may name the model more exactly. */
function answeredBy(model: LanguageModel): StreamPart {
  return { type: 'response-metadata', provider: model.provider, modelId: model.modelId }
}

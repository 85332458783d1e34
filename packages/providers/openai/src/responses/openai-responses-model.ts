// The Responses API as a Spindle LanguageModel (`openai.responses('gpt-5.4')`).
import type { LanguageModel, ModelCallOptions, ModelCapabilities, ModelRequest, StreamPart } from '@spindle/core'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { wellFormed } from '@spindle/core/plugin-kit'
import { capabilitiesFor } from '../model-traits.js'
import type { OpenAIModelSettings, ResolvedProviderSettings } from '../openai-settings.js'
import { driveStream } from '../streaming/drive-stream.js'
import { convertToResponsesRequest } from './convert-to-responses-request.js'
import { ResponsesStreamMapper } from './responses-stream-mapper.js'

export class OpenAIResponsesModel implements LanguageModel {
  readonly specificationVersion = 'v1' as const
  readonly provider: string
  readonly modelId: string
  readonly capabilities: ModelCapabilities
  readonly #settings: ResolvedProviderSettings
  readonly #modelSettings: OpenAIModelSettings

  constructor(modelId: string, settings: ResolvedProviderSettings, modelSettings: OpenAIModelSettings = {}) {
    this.provider = settings.name
    this.modelId = modelId
    this.capabilities = capabilitiesFor(modelId, modelSettings.capabilities)
    this.#settings = settings
    this.#modelSettings = modelSettings
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<StreamPart> {
    const settings = this.#settings
    const errors = settings.errors(options.headers)
    // Returned directly (no wrapping generator): one async-generator hop per part instead of two.
    // The client is built and the request converted lazily, at the first `next()`.
    return driveStream<ResponseStreamEvent>({
      errors,
      retry: { ...settings.retry, maxRetries: settings.maxRetries },
      timeouts: settings.timeouts,
      signal: options.signal,
      open: (signal) => {
        const params = wellFormed(
          convertToResponsesRequest(request, {
            provider: this.provider,
            modelId: this.modelId,
            ...(this.#modelSettings.reasoning !== undefined ? { reasoning: this.#modelSettings.reasoning } : {}),
          }),
        )
        return settings.client().responses.create(params, { signal, maxRetries: 0, ...(options.headers ? { headers: options.headers } : {}) })
      },
      createMapper: (attemptErrors) => new ResponsesStreamMapper(attemptErrors),
    })
  }
}

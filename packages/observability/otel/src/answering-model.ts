// Which provider and model answered a model call: what its `step.finished.response` says, else what the run asked for.
import type { ModelResponseInfo } from '@spindle/core'

/** The names a chat span and its metric points carry for one model call. */
export interface AnsweringModel {
  /** `gen_ai.provider.name`: the provider that answered (a fallback chain's link, never `fallback`). */
  provider: string
  /** `gen_ai.request.model`: the model the request went to (the answering link's id in a fallback chain). */
  requestModel: string
  /** `gen_ai.response.model`: the model the provider says answered (an alias resolved, a dated snapshot). */
  responseModel: string
}

/**
 * The answering model of a call whose run asked for `provider:model`. A response naming another provider (a fallback
 * chain, a router) moves the request to that provider's model; a response naming only a model sets the response model.
 */
export function answeringModel(provider: string, model: string, response: ModelResponseInfo | undefined): AnsweringModel {
  if (response === undefined) return { provider, requestModel: model, responseModel: model }
  if (response.provider !== undefined && response.provider !== provider) {
    const answered = response.modelId ?? model
    return { provider: response.provider, requestModel: answered, responseModel: answered }
  }
  return { provider, requestModel: model, responseModel: response.modelId ?? model }
}

// aiSdkProvider: an AI SDK provider (`google`, `mistral`, `bedrock`…) as a Spindle plugin, so that `google:gemini-…`
// ids resolve in the ProviderRegistry (the playground's picker, `enqueue` by id, agent specs).
import { ConfigurationError, type EmbeddingModel, type Extensions, type LanguageModel, type Plugin, type ProviderFactory } from '@spindle/core'
import { fromAiSdkEmbedding, type AiSdkEmbeddingModel } from '../embedding/from-ai-sdk-embedding.js'
import type { AiSdkLanguageModel } from '../language-model/ai-sdk-types.js'
import { fromAiSdk, type FromAiSdkOptions } from '../language-model/from-ai-sdk.js'

/** What the plugin reads of an AI SDK provider: a callable or `languageModel(id)`, and optionally embedding models. */
export type AiSdkProviderLike =
  | ((modelId: string) => AiSdkLanguageModel)
  | {
      languageModel(modelId: string): AiSdkLanguageModel
      textEmbeddingModel?(modelId: string): AiSdkEmbeddingModel
      embeddingModel?(modelId: string): AiSdkEmbeddingModel
    }

/**
 * Options of `aiSdkProvider(name, provider, options)`: those of `fromAiSdk` (retries, secrets, timeouts) except
 * `provider`, which is the registered name, plus the vector length of each embedding model the provider serves.
 *
 * @example
 * extensions.use(aiSdkProvider('openai', openai, { embeddingDimensions: { 'text-embedding-3-small': 1536 } }))
 */
export interface AiSdkProviderOptions extends Omit<FromAiSdkOptions, 'provider'> {
  /** Vector length of the provider's embedding models, per model id (needed to resolve `name:embedding-id`). */
  embeddingDimensions?: Record<string, number>
}

/** The plugin: `extensions.use(aiSdkProvider('google', google))`; also a ProviderFactory. */
export interface AiSdkProviderPlugin extends Plugin, ProviderFactory {
  readonly name: string
}

/**
 * Registers an AI SDK provider under a name, so `name:model-id` resolves to `fromAiSdk(provider(model-id))`.
 *
 * @example
 * import { google } from '@ai-sdk/google'
 * const extensions = new Extensions().use(aiSdkProvider('google', google))
 * await runtime.run({ agent: { name: 'helper', model: 'google:gemini-2.5-flash' }, input: 'Hello' })
 */
export function aiSdkProvider(name: string, provider: AiSdkProviderLike, options: AiSdkProviderOptions = {}): AiSdkProviderPlugin {
  if (!/^[a-zA-Z0-9_.-]+$/.test(name))
    throw new ConfigurationError(
      `[spindle/ai-sdk] aiSdkProvider: name "${name}" must be letters, digits, "_", "-" or "." (it prefixes model ids as "${name}:model")`,
    )
  const languageModelOf = typeof provider === 'function' ? provider : provider.languageModel?.bind(provider)
  if (typeof languageModelOf !== 'function')
    throw new ConfigurationError(`[spindle/ai-sdk] aiSdkProvider("${name}"): pass an AI SDK provider (callable, or with languageModel(id))`)
  const { embeddingDimensions, ...modelOptions } = options
  const languageModel = (modelId: string): LanguageModel => fromAiSdk(languageModelOf(modelId), { ...modelOptions, provider: name })
  const embeddingModel = (modelId: string): EmbeddingModel => {
    const source = provider as { textEmbeddingModel?(id: string): AiSdkEmbeddingModel; embeddingModel?(id: string): AiSdkEmbeddingModel }
    const create = source.embeddingModel ?? source.textEmbeddingModel
    const dimensions = embeddingDimensions?.[modelId]
    if (typeof create !== 'function' || dimensions === undefined) {
      throw new ConfigurationError(`[spindle/ai-sdk] aiSdkProvider("${name}"): no embedding model "${modelId}"; give its vector length in embeddingDimensions`)
    }
    return fromAiSdkEmbedding(create.call(provider, modelId), {
      dimensions,
      provider: name,
      ...(options.secrets !== undefined && { secrets: options.secrets }),
    })
  }
  return {
    name,
    languageModel,
    embeddingModel,
    setup(extensions: Extensions) {
      extensions.providers.registerProvider(name, { languageModel, embeddingModel })
    },
  }
}

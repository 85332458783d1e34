// Resolves `provider:model` ids to LanguageModels, with fallback chains.
import { ConfigurationError, NotFoundError } from '../errors/errors.js'
import type { EmbeddingModel, LanguageModel } from '../spec/language-model.js'
import { fallbackModel } from './fallback-model.js'

/** What a provider package registers: factories for its model ids. */
export interface ProviderFactory {
  languageModel(modelId: string): LanguageModel
  embeddingModel?(modelId: string): EmbeddingModel
}

/**
 * @example
 * registry.registerProvider('openai', openai)
 * registry.languageModel('openai:gpt-5.4')
 */
export class ProviderRegistry {
  readonly #providers = new Map<string, ProviderFactory>()
  readonly #models = new Map<string, LanguageModel>()
  readonly #embeddings = new Map<string, EmbeddingModel>()

  registerProvider(name: string, factory: ProviderFactory): this {
    if (this.#providers.has(name)) throw new ConfigurationError(`[spindle/core] provider "${name}" is already registered; use replaceProvider() to swap it`)
    this.#providers.set(name, factory)
    return this
  }

  replaceProvider(name: string, factory: ProviderFactory): this {
    this.#providers.set(name, factory)
    return this
  }

  /** Registers a concrete model under an exact id (e.g. `demo` or `openai:gpt-5.4`). */
  registerModel(id: string, model: LanguageModel): this {
    if (this.#models.has(id)) throw new ConfigurationError(`[spindle/core] model "${id}" is already registered`)
    this.#models.set(id, model)
    return this
  }

  registerEmbeddingModel(id: string, model: EmbeddingModel): this {
    this.#embeddings.set(id, model)
    return this
  }

  /** True when `languageModel(id)` can resolve the id (an exact model, or `provider:model` of a registered provider). */
  has(id: string): boolean {
    if (this.#models.has(id)) return true
    const colon = id.indexOf(':')
    return colon > 0 && this.#providers.has(id.slice(0, colon))
  }

  providerNames(): string[] {
    return [...this.#providers.keys()]
  }

  modelIds(): string[] {
    return [...this.#models.keys()]
  }

  /** Resolves an id, a model, or a fallback chain (array: first that works, in order). */
  languageModel(id: string | LanguageModel | ReadonlyArray<string | LanguageModel>): LanguageModel {
    if (Array.isArray(id)) return fallbackModel(id.map((entry) => this.languageModel(entry)))
    if (typeof id !== 'string') return id as LanguageModel
    const exact = this.#models.get(id)
    if (exact) return exact
    const colon = id.indexOf(':')
    if (colon <= 0) {
      throw new NotFoundError(
        `[spindle/core] model "${id}" is not registered. Use a "provider:model" id (providers: ${list(this.providerNames())}) or one of the registered models: ${list(this.modelIds())}`,
      )
    }
    const providerName = id.slice(0, colon)
    const factory = this.#providers.get(providerName)
    if (!factory) {
      throw new NotFoundError(
        `[spindle/core] no provider "${providerName}" for model "${id}". Registered providers: ${list(this.providerNames())}. Add its plugin, e.g. extensions.use(${providerName}Plugin)`,
      )
    }
    return factory.languageModel(id.slice(colon + 1))
  }

  embeddingModel(id: string | EmbeddingModel): EmbeddingModel {
    if (typeof id !== 'string') return id
    const exact = this.#embeddings.get(id)
    if (exact) return exact
    const colon = id.indexOf(':')
    const factory = colon > 0 ? this.#providers.get(id.slice(0, colon)) : undefined
    if (!factory?.embeddingModel) throw new NotFoundError(`[spindle/core] no embedding model "${id}" is registered`)
    return factory.embeddingModel(id.slice(colon + 1))
  }
}

function list(names: string[]): string {
  return names.length ? names.join(', ') : '(none)'
}

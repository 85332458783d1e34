// createOpenAI: a callable provider (`openai('gpt-5.4')`) with `.responses`, `.chat`, `.embedding`,
// that is also an Extensions plugin registering itself in the ProviderRegistry (`openai:gpt-5.4`).
import { ConfigurationError, type EmbeddingModel, type Extensions, type LanguageModel, type Plugin, type ProviderFactory } from '@spindle/core'
import { requestSecrets, splitBaseURL, urlSecrets } from '@spindle/core/plugin-kit'
import { OpenAIChatModel } from './chat/openai-chat-model.js'
import { OpenAIEmbeddingModel, type OpenAIEmbeddingSettings } from './embedding/openai-embedding-model.js'
import { lazyClient, type OpenAIModelSettings, type ResolvedProviderSettings } from './openai-settings.js'
import { OpenAIResponsesModel } from './responses/openai-responses-model.js'
import { defaultRetryOptions, type RetryOptions } from './streaming/retry-policy.js'

/** Options of `createOpenAI()`: the registry name, the key, `baseURL` and other injectable I/O, retries, timeouts and the default API. */
export interface OpenAIProviderOptions {
  /**
   * Provider name: the `name:` prefix of model ids in the registry and the name in error messages
   * (default `openai`). Name OpenAI-compatible servers: `createOpenAI({ name: 'ollama', baseURL })`.
   */
  name?: string
  /** Defaults to the `OPENAI_API_KEY` environment variable, read at the first call. */
  apiKey?: string
  /**
   * e.g. `http://localhost:11434/v1` for Ollama; defaults to the SDK's (`OPENAI_BASE_URL` or api.openai.com). A query
   * string (`…/openai/v1?api-version=preview`) is kept on every request, after the path; credentials before the host
   * (`http://user:password@host`) or a fragment are a ConfigurationError at creation.
   */
  baseURL?: string
  organization?: string
  project?: string
  /** Headers sent with every request. Values of credential headers (`api-key`, `authorization`, names with key/token/secret/auth, cookies) are scrubbed from errors. */
  headers?: Record<string, string>
  /** A custom fetch (proxies, tracing, tests). */
  fetch?: typeof globalThis.fetch
  /**
   * Retries before any part was yielded, for 408/409/429/5xx, connection errors and first-chunk timeouts
   * (default 2). Spindle retries itself with jittered exponential backoff and honours `Retry-After` /
   * `retry-after-ms`; the SDK's own retries are turned off. Errors report the requests made (`attempts`), so the
   * runtime does not retry the call again on top of these.
   */
  maxRetries?: number
  /** Backoff tuning (initial delay 500 ms, cap 8 s; a Retry-After over 60 s is surfaced instead of waited for). */
  retry?: Partial<Omit<RetryOptions, 'maxRetries'>>
  /** Stream timeouts: until the first event (default 300 s) and between events (default 120 s). */
  timeouts?: { firstChunkMs?: number; idleMs?: number }
  /** The API behind `provider(modelId)` and `provider:model` ids: `responses` for OpenAI, `chat` for other names. */
  defaultApi?: 'responses' | 'chat'
  /** Chat Completions' output-limit field: `max_completion_tokens` for OpenAI, `max_tokens` for other names. */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens'
}

/** The provider: callable for the default API, a ProviderFactory and an Extensions plugin. */
export interface OpenAIProvider extends ProviderFactory, Plugin {
  (modelId: string, settings?: OpenAIModelSettings): LanguageModel
  /** Provider name (also the plugin name). */
  readonly name: string
  /** A Responses API model. */
  responses(modelId: string, settings?: OpenAIModelSettings): LanguageModel
  /** A Chat Completions model. */
  chat(modelId: string, settings?: OpenAIModelSettings): LanguageModel
  /** An embedding model. */
  embedding(modelId: string, settings?: OpenAIEmbeddingSettings): EmbeddingModel
  /** A model of the default API (what `name:model` ids resolve to). */
  languageModel(modelId: string): LanguageModel
  embeddingModel(modelId: string): EmbeddingModel
  /** The plugin (the provider itself): `extensions.use(openai.plugin())` or `extensions.use(openai)`. */
  plugin(): Plugin
}

/**
 * Creates an OpenAI provider.
 *
 * @example
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY })
 * const extensions = new Extensions().use(openai)          // `openai:gpt-5.4` now resolves
 * const model = openai('gpt-5.4')                          // Responses API
 * const local = createOpenAI({ name: 'ollama', baseURL: 'http://localhost:11434/v1', apiKey: 'ollama' })
 */
export function createOpenAI(options: OpenAIProviderOptions = {}): OpenAIProvider {
  const name = options.name ?? 'openai'
  validateOptions(options, name)
  const isOpenAI = name === 'openai'
  const baseUrlSecrets = urlSecrets(options.baseURL ?? globalThis.process?.env?.OPENAI_BASE_URL)
  const lazy = lazyClient({
    name,
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    organization: options.organization,
    project: options.project,
    headers: options.headers,
    fetch: options.fetch,
  })
  const settings: ResolvedProviderSettings = {
    name,
    maxRetries: options.maxRetries ?? defaultRetryOptions.maxRetries,
    retry: { ...defaultRetryOptions, ...options.retry, maxRetries: options.maxRetries ?? defaultRetryOptions.maxRetries },
    timeouts: { firstChunkMs: options.timeouts?.firstChunkMs ?? 300_000, idleMs: options.timeouts?.idleMs ?? 120_000 },
    maxTokensField: options.maxTokensField ?? (isOpenAI ? 'max_completion_tokens' : 'max_tokens'),
    client: lazy.client,
    // The base URL's userinfo and credential query values are secrets too (`requestSecrets` sorts them longest first).
    errors: (callHeaders) => ({ provider: name, secrets: withUrlSecrets(requestSecrets(lazy.apiKey(), options.headers, callHeaders), baseUrlSecrets) }),
  }
  const defaultApi = options.defaultApi ?? (isOpenAI ? 'responses' : 'chat')

  const responses = (modelId: string, modelSettings?: OpenAIModelSettings) => new OpenAIResponsesModel(modelId, settings, modelSettings)
  const chat = (modelId: string, modelSettings?: OpenAIModelSettings) => new OpenAIChatModel(modelId, settings, modelSettings)
  const byDefault = (modelId: string, modelSettings?: OpenAIModelSettings) =>
    defaultApi === 'responses' ? responses(modelId, modelSettings) : chat(modelId, modelSettings)
  const embedding = (modelId: string, embeddingSettings?: OpenAIEmbeddingSettings) => new OpenAIEmbeddingModel(modelId, settings, embeddingSettings)

  const provider = ((modelId: string, modelSettings?: OpenAIModelSettings) => byDefault(modelId, modelSettings)) as unknown as OpenAIProvider
  Object.defineProperty(provider, 'name', { value: name })
  const factory: ProviderFactory = { languageModel: (modelId) => byDefault(modelId), embeddingModel: (modelId) => embedding(modelId) }
  Object.assign(provider, {
    responses,
    chat,
    embedding,
    languageModel: (modelId: string) => byDefault(modelId),
    embeddingModel: (modelId: string) => embedding(modelId),
    setup(extensions: Extensions) {
      extensions.providers.registerProvider(name, factory)
    },
    plugin: () => provider,
  })
  return provider
}

function validateOptions(options: OpenAIProviderOptions, name: string): void {
  const fail = (message: string): never => {
    throw new ConfigurationError(`[spindle/${name}] createOpenAI: ${message}`)
  }
  if (!/^[a-zA-Z0-9_.-]+$/.test(name)) fail(`name "${name}" must be letters, digits, "_", "-" or "." (it prefixes model ids as "${name}:model")`)
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) fail('maxRetries must be an integer >= 0')
  for (const [key, value] of Object.entries({ ...options.retry, ...options.timeouts })) {
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) fail(`${key} must be a number of milliseconds >= 0`)
  }
  if (options.baseURL !== undefined) splitBaseURL(options.baseURL, fail)
}

/** The default provider: the key comes from `OPENAI_API_KEY` at the first call. */
export const openai: OpenAIProvider = createOpenAI()

/** The call's secrets with the base URL's added, longest first (a whole `user:password` before its parts). */
function withUrlSecrets(secrets: string[], fromUrl: readonly string[]): string[] {
  if (fromUrl.length === 0) return secrets
  return [...new Set([...secrets, ...fromUrl])].sort((a, b) => b.length - a.length)
}

// createAnthropic: a callable provider of Messages API models, also usable as an Extensions plugin.
import Anthropic from '@anthropic-ai/sdk'
import { ConfigurationError, type Extensions, type ModelCapabilities, type Plugin, type ProviderFactory } from '@spindle/core'
import { splitBaseURL, urlSecrets } from '@spindle/core/plugin-kit'
import { AnthropicMessagesModel } from './anthropic-messages-model.js'
import { parseAnthropicRequestOptions, type AnthropicRequestOptions } from './anthropic-provider-options.js'
import { anthropicModelCapabilities } from './model-capabilities.js'
import type { RetryOptions } from './retry-policy.js'

/** Options of `createAnthropic()`: the key, `baseURL`, headers, `fetch`, retries and timeouts. */
export interface AnthropicProviderOptions {
  /** Defaults to `ANTHROPIC_API_KEY`, read when a model is first called. */
  apiKey?: string
  /**
   * Defaults to `https://api.anthropic.com` (the SDK appends `/v1/messages`). A query string is kept on every request,
   * after the path; credentials before the host (`http://user:password@host`) or a fragment are a ConfigurationError
   * at creation.
   */
  baseURL?: string
  /**
   * Extra headers on every request (e.g. `anthropic-beta`). Values of credential headers (`authorization`,
   * names with key/token/secret/auth, cookies) are scrubbed from errors, like the API key.
   */
  headers?: Record<string, string>
  /** A custom fetch (proxies, tests, instrumentation). */
  fetch?: typeof globalThis.fetch
  /** Provider name for `provider:model` ids and errors (default `anthropic`). */
  name?: string
  /**
   * Retries before any part was streamed, for 408/409/429/5xx/529 and network errors (default 2 retries). Errors
   * report the requests made (`attempts`), so the runtime does not retry the call again on top of these.
   */
  retry?: RetryOptions
  /** Longest wait for the first stream event (default 120 s). */
  firstChunkTimeoutMs?: number
  /** Longest silence between stream events (default 120 s); time the consumer spends on a part is not counted. */
  idleTimeoutMs?: number
  /** Overrides the capabilities of every model (e.g. a smaller context window on a proxy). */
  capabilities?: Partial<ModelCapabilities>
}

/**
 * A callable provider: `anthropic('claude-sonnet-5')` is `anthropic.messages('claude-sonnet-5')`.
 * The optional second argument sets default `providerOptions.anthropic` for every request of that
 * model, e.g. `anthropic('claude-sonnet-5', { thinking: { type: 'enabled', budget_tokens: 4096 } })`.
 */
export interface AnthropicProvider extends ProviderFactory, Plugin {
  (modelId: string, defaults?: AnthropicRequestOptions): AnthropicMessagesModel
  readonly name: string
  messages(modelId: string, defaults?: AnthropicRequestOptions): AnthropicMessagesModel
  languageModel(modelId: string): AnthropicMessagesModel
  /** Registers this provider in `ext.providers`, so `anthropic:claude-sonnet-5` resolves. */
  setup(extensions: Extensions): void
}

const defaultBaseURL = 'https://api.anthropic.com'

/**
 * @example
 * const anthropic = createAnthropic({ apiKey: process.env.MY_KEY })
 * const ext = new Extensions().use(anthropic)
 * await new AgentRuntime(ext).run({ agent: { name: 'helper', model: 'anthropic:claude-sonnet-5' }, input: 'Hi' })
 */
export function createAnthropic(options: AnthropicProviderOptions = {}): AnthropicProvider {
  const name = options.name ?? 'anthropic'
  const base =
    options.baseURL === undefined
      ? undefined
      : splitBaseURL(options.baseURL, (message) => {
          throw new ConfigurationError(`[spindle/anthropic] createAnthropic: ${message}`)
        })
  let client: Anthropic | undefined
  let clientKey: string | undefined

  const resolveKey = () => options.apiKey ?? process.env.ANTHROPIC_API_KEY
  const getClient = (): Anthropic => {
    const apiKey = resolveKey()
    if (!apiKey) {
      throw new ConfigurationError(`[spindle/anthropic] no API key: pass createAnthropic({ apiKey }) or set the ANTHROPIC_API_KEY environment variable`)
    }
    if (!client || clientKey !== apiKey) {
      client = new Anthropic({
        apiKey,
        authToken: null,
        baseURL: base?.baseURL ?? defaultBaseURL,
        ...(base?.defaultQuery ? { defaultQuery: base.defaultQuery } : {}),
        ...(options.headers ? { defaultHeaders: options.headers } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        // Spindle retries itself, and only before the first part was streamed.
        maxRetries: 0,
        // Our first-chunk and idle timeouts bound the request; this is the SDK's outer guard.
        timeout: 60 * 60 * 1000,
      })
      clientKey = apiKey
    }
    return client
  }

  const messages = (modelId: string, defaults?: AnthropicRequestOptions): AnthropicMessagesModel => {
    if (!modelId) throw new ConfigurationError(`[spindle/anthropic] a model id is required, e.g. anthropic('claude-sonnet-5')`)
    return new AnthropicMessagesModel(modelId, {
      defaults: parseAnthropicRequestOptions(defaults),
      provider: name,
      client: getClient,
      apiKey: resolveKey,
      ...(options.headers ? { providerHeaders: options.headers } : {}),
      urlSecrets: urlSecrets(options.baseURL),
      retry: options.retry ?? {},
      firstChunkTimeoutMs: options.firstChunkTimeoutMs ?? 120_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 120_000,
      capabilities: { ...anthropicModelCapabilities(modelId), ...options.capabilities },
    })
  }

  const provider = ((modelId: string, defaults?: AnthropicRequestOptions) => messages(modelId, defaults)) as AnthropicProvider
  Object.defineProperty(provider, 'name', { value: name })
  Object.assign(provider, {
    messages,
    languageModel: (modelId: string) => messages(modelId),
    setup(extensions: Extensions) {
      extensions.providers.registerProvider(name, { languageModel: (modelId: string) => messages(modelId) })
    },
  })
  return provider
}

/** The default provider: key from `ANTHROPIC_API_KEY`, official base URL. */
export const anthropic: AnthropicProvider = createAnthropic()

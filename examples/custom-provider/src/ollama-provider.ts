// createOllama(): a Spindle provider plugin for Ollama's native chat API. `extensions.use(ollama)` registers it
// so agents can name models as `ollama:llama3.2`.
import { ConfigurationError, definePlugin, type Extensions, type LanguageModel, type ModelCapabilities, type Plugin } from '@spindle/core'
import { OllamaChatModel, type OllamaModelSettings } from './ollama-chat-model.js'

export interface OllamaProviderOptions {
  /** Where Ollama listens. Default `http://127.0.0.1:11434` (or `OLLAMA_HOST`). */
  baseURL?: string
  /** Sent as `Authorization: Bearer …` (Ollama's cloud or a proxy in front of it); never echoed in errors. */
  apiKey?: string
  headers?: Record<string, string>
  /** A fetch implementation to use instead of the global one. */
  fetch?: typeof globalThis.fetch
  /** Retries of a retryable failure (429, 5xx, timeout, lost connection) before any part was yielded. Default 2. */
  maxRetries?: number
  /** First backoff delay, doubled on every retry, unless the server sends Retry-After. Default 500 ms. */
  initialDelayMs?: number
  maxDelayMs?: number
  /** Time allowed from the request to the first byte of the stream (a cold model load can be slow). Default 300 s. */
  firstChunkTimeoutMs?: number
  /** Time allowed between two chunks. Default 60 s. */
  idleTimeoutMs?: number
  /** What the kernel may assume of every model of this provider; Ollama's API does not report it. */
  capabilities?: Partial<ModelCapabilities>
  /** The provider name in model ids (`name:model`). Default `ollama`. */
  name?: string
}

export interface OllamaProvider extends Plugin {
  /** A chat model, e.g. `ollama.languageModel('llama3.2')`. */
  languageModel(modelId: string): LanguageModel
}

const defaultCapabilities: ModelCapabilities = {
  contextWindow: 32_768,
  maxOutputTokens: 8_192,
  tools: true,
  parallelTools: true,
  reasoning: true,
  structuredOutput: true,
}

/**
 * @example
 * const extensions = new Extensions().use(createOllama({ baseURL: 'http://127.0.0.1:11434' }))
 * const output = await new AgentRuntime(extensions).run({ agent: { name: 'a', model: 'ollama:llama3.2', tools: {} }, input: 'Hi' })
 */
export function createOllama(options: OllamaProviderOptions = {}): OllamaProvider {
  const name = options.name ?? 'ollama'
  const baseURL = (options.baseURL ?? process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434').replace(/\/+$/, '')
  if (!/^https?:\/\//.test(baseURL)) throw new ConfigurationError(`[spindle-provider-ollama] baseURL "${baseURL}" must start with http:// or https://`)
  for (const [key, value] of Object.entries({
    maxRetries: options.maxRetries,
    initialDelayMs: options.initialDelayMs,
    maxDelayMs: options.maxDelayMs,
    firstChunkTimeoutMs: options.firstChunkTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
  })) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0))
      throw new ConfigurationError(`[spindle-provider-ollama] ${key} must be a number >= 0, got ${value}`)
  }
  const settings: OllamaModelSettings = {
    baseURL,
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    headers: options.headers ?? {},
    fetch: options.fetch ?? globalThis.fetch,
    maxRetries: options.maxRetries ?? 2,
    initialDelayMs: options.initialDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 20_000,
    firstChunkTimeoutMs: options.firstChunkTimeoutMs ?? 300_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    capabilities: { ...defaultCapabilities, ...options.capabilities },
  }
  const languageModel = (modelId: string) => new OllamaChatModel(modelId, settings)
  return definePlugin({
    name: `provider-${name}`,
    languageModel,
    setup(extensions: Extensions) {
      extensions.providers.registerProvider(name, { languageModel })
    },
  })
}

// Resolved settings shared by every model a provider creates, and the lazily built SDK client.
import { ConfigurationError, type ModelCapabilities } from '@spindle/core'
import OpenAI from 'openai'
import { splitBaseURL } from '@spindle/core/plugin-kit'
import type { ErrorMappingContext } from './errors/map-openai-error.js'
import type { RetryOptions } from './streaming/retry-policy.js'
import type { StreamTimeouts } from './streaming/drive-stream.js'

/** Per-model settings: `openai.responses('gpt-5.4', { capabilities: { contextWindow: 200_000 } })`. */
export interface OpenAIModelSettings {
  /** Overrides the capabilities guessed from the model id (useful for other servers' models). */
  capabilities?: Partial<ModelCapabilities>
  /** Force reasoning-model handling (developer messages, no temperature, reasoning summaries). */
  reasoning?: boolean
}

export interface ResolvedProviderSettings {
  name: string
  maxRetries: number
  retry: RetryOptions
  timeouts: StreamTimeouts
  maxTokensField: 'max_completion_tokens' | 'max_tokens'
  /** Builds (once) the SDK client; throws a ConfigurationError when no API key is available. */
  client(): OpenAI
  /** The error mapping of one call; `callHeaders` are the call's headers, whose credential values are scrubbed too. */
  errors(callHeaders?: Record<string, string>): ErrorMappingContext
}

export interface ClientOptions {
  name: string
  apiKey: string | undefined
  baseURL: string | undefined
  organization: string | undefined
  project: string | undefined
  headers: Record<string, string> | undefined
  fetch: typeof globalThis.fetch | undefined
}

/** A lazily created client: the key is read (option, then `OPENAI_API_KEY`) at the first call, not at import. */
export function lazyClient(options: ClientOptions): { client(): OpenAI; apiKey(): string | undefined } {
  let client: OpenAI | undefined
  const apiKey = () => options.apiKey ?? (globalThis.process?.env?.OPENAI_API_KEY || undefined)
  return {
    apiKey,
    client() {
      if (client) return client
      const key = apiKey()
      if (!key) {
        throw new ConfigurationError(
          `[spindle/${options.name}] no API key: pass createOpenAI({ apiKey }) or set the OPENAI_API_KEY environment variable` +
            (options.baseURL ? ' (local OpenAI-compatible servers accept any non-empty key, e.g. "ollama")' : ''),
        )
      }
      // OPENAI_BASE_URL is checked here, at the first call, like the key: a bad value in the environment must not
      // break the import of the default provider.
      const rawBaseURL = options.baseURL ?? (globalThis.process?.env?.OPENAI_BASE_URL || undefined)
      const base =
        rawBaseURL === undefined
          ? undefined
          : splitBaseURL(rawBaseURL, (message) => {
              throw new ConfigurationError(`[spindle/${options.name}] ${options.baseURL === undefined ? 'OPENAI_BASE_URL: ' : ''}${message}`)
            })
      client = new OpenAI({
        apiKey: key,
        ...(base ? { baseURL: base.baseURL } : {}),
        ...(base?.defaultQuery ? { defaultQuery: base.defaultQuery } : {}),
        ...(options.organization ? { organization: options.organization } : {}),
        ...(options.project ? { project: options.project } : {}),
        ...(options.headers ? { defaultHeaders: options.headers } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
        // Spindle retries itself (see drive-stream.ts) so that retries stop once output was yielded
        // and every attempt is visible and testable; the SDK must not retry underneath.
        maxRetries: 0,
      })
      return client
    },
  }
}

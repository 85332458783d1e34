// The Messages API as a Spindle LanguageModel: request building, stream mapping, retries before
// the first part, first-chunk and idle timeouts, and abort, around the official SDK client.
// Every ProviderError carries `attempts` (the requests made for the call): the retries are spent here,
// and the runtime must not multiply them by retrying the call again.
import Anthropic from '@anthropic-ai/sdk'
import {
  AbortedError,
  ProviderError,
  StreamInterruptedError,
  type LanguageModel,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type StreamPart,
} from '@spindle/core'
import { requestSecrets, wellFormed } from '@spindle/core/plugin-kit'
import type { AnthropicRequestOptions } from './anthropic-provider-options.js'
import { buildMessagesRequest } from './build-request.js'
import { mapAnthropicError, redactSecrets } from './map-error.js'
import { AnthropicStreamMapper } from './map-stream.js'
import { retryDelayMs, sleep, type RetryOptions } from './retry-policy.js'

/** What an `AnthropicMessagesModel` is built with: the provider name, its SDK client and the settings shared by the provider's models. */
export interface AnthropicModelSettings {
  /** Provider name reported by the model and its errors (default `anthropic`). */
  provider: string
  /** Returns the SDK client; throws a ConfigurationError when no API key is available. */
  client: () => Anthropic
  /** The key in use, only to redact it from error messages. */
  apiKey: () => string | undefined
  /** The headers the client sends with every request, only read to redact credential values among them from errors. */
  providerHeaders?: Record<string, string>
  /** Secrets carried by the base URL (userinfo, credential query values), scrubbed from errors like the key. */
  urlSecrets?: readonly string[]
  retry: RetryOptions
  /** Longest wait for the first stream event, request included. */
  firstChunkTimeoutMs: number
  /** Longest silence between two stream events (pings are not seen through the SDK); time the consumer spends on a part is not counted. */
  idleTimeoutMs: number
  capabilities: ModelCapabilities
  /** Default `providerOptions.anthropic` of every request (e.g. extended thinking for an agent's model). */
  defaults?: AnthropicRequestOptions
}

type TimeoutKind = 'first-chunk' | 'idle'

/**
 * @example
 * for await (const part of anthropic('claude-sonnet-5').stream({ messages })) if (part.type === 'text-delta') write(part.delta)
 */
export class AnthropicMessagesModel implements LanguageModel {
  readonly specificationVersion = 'v1' as const
  readonly provider: string
  readonly modelId: string
  readonly capabilities: ModelCapabilities
  readonly #settings: AnthropicModelSettings

  constructor(modelId: string, settings: AnthropicModelSettings) {
    this.modelId = modelId
    this.provider = settings.provider
    this.capabilities = settings.capabilities
    this.#settings = settings
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<StreamPart> {
    return this.#stream(request, options)
  }

  async *#stream(request: ModelRequest, options: ModelCallOptions): AsyncGenerator<StreamPart> {
    const built = buildMessagesRequest(this.modelId, this.capabilities, request, this.#settings.defaults)
    const body = wellFormed(built.body)
    const jsonToolName = built.jsonToolName
    const client = this.#settings.client()
    const signal = options.signal
    const secrets = [...requestSecrets(this.#settings.apiKey(), this.#settings.providerHeaders, options.headers), ...(this.#settings.urlSecrets ?? [])].sort(
      (a, b) => b.length - a.length,
    )
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted()
      let yielded = false
      let held: StreamPart | undefined
      try {
        for await (const part of this.#attempt(client, body, jsonToolName, options, secrets, attempt)) {
          // Metadata is held back until real output, so a retried attempt never shows two responses.
          if (!yielded && part.type === 'response-metadata') {
            held = part
            continue
          }
          if (held) yield held
          held = undefined
          yielded = true
          yield part
        }
        return
      } catch (raw) {
        if (signal?.aborted) throw aborted()
        const error = mapAnthropicError(raw, { provider: this.provider, apiKey: this.#settings.apiKey(), secrets, attempts: attempt })
        if (AbortedError.isInstance(error)) throw error
        if (yielded) {
          yield { type: 'error', error }
          return
        }
        const delay = retryDelayMs(attempt, error, this.#settings.retry)
        if (delay === undefined) throw error
        await sleep(delay, signal)
      }
    }
  }

  async *#attempt(
    client: Anthropic,
    body: ReturnType<typeof buildMessagesRequest>['body'],
    jsonToolName: string | undefined,
    options: ModelCallOptions,
    secrets: readonly string[],
    attempts: number,
  ): AsyncGenerator<StreamPart> {
    const controller = new AbortController()
    const signal = options.signal
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    let timedOut: TimeoutKind | undefined
    let timer: NodeJS.Timeout | undefined
    const arm = (kind: TimeoutKind, ms: number) => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        timedOut = kind
        controller.abort()
      }, ms)
    }
    const mapper = new AnthropicStreamMapper({ jsonToolName })
    let iterator: AsyncIterator<Anthropic.Messages.RawMessageStreamEvent> | undefined
    try {
      arm('first-chunk', this.#settings.firstChunkTimeoutMs)
      let stream: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>
      try {
        stream = await client.messages.create(body, { signal: controller.signal, ...(options.headers ? { headers: options.headers } : {}) })
      } catch (error) {
        throw this.#interruption(error, timedOut, signal, false, secrets, attempts)
      }
      iterator = stream[Symbol.asyncIterator]()
      for (;;) {
        let next: IteratorResult<Anthropic.Messages.RawMessageStreamEvent>
        try {
          next = await iterator.next()
        } catch (error) {
          throw this.#interruption(error, timedOut, signal, true, secrets, attempts)
        }
        // The clock runs only while we wait for the API: time the consumer spends on the parts
        // (back-pressure from a slow reader) is not silence of the stream.
        clearTimeout(timer)
        if (next.done) break
        for (const part of mapper.map(next.value)) yield part
        // Nothing follows message_stop: stop reading so a lingering connection cannot time out a complete answer.
        if (mapper.finished) break
        arm('idle', this.#settings.idleTimeoutMs)
      }
      if (mapper.finished) return
      // The SDK ends the iteration quietly when its request is aborted.
      if (timedOut || signal?.aborted) throw this.#interruption(undefined, timedOut, signal, true, secrets, attempts)
      if (!mapper.finished) {
        const open = mapper.openToolCalls()
        throw new StreamInterruptedError(
          `[spindle/anthropic] the stream ended before message_stop${open.length ? `; tool call(s) ${open.join(', ')} were cut off and must not run` : ''}. The answer is incomplete: retry the request.`,
          { provider: this.provider, attempts, details: { openToolCalls: open } },
        )
      }
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      if (!mapper.finished) controller.abort()
      else void iterator?.return?.()
    }
  }

  /** Explains why a request or stream stopped: our timeout, the caller's abort, or the transport. */
  #interruption(
    error: unknown,
    timedOut: TimeoutKind | undefined,
    signal: AbortSignal | undefined,
    streaming: boolean,
    secrets: readonly string[],
    attempts: number,
  ): unknown {
    if (timedOut === 'first-chunk') {
      return new ProviderError(
        `[spindle/anthropic] no response within ${this.#settings.firstChunkTimeoutMs} ms (firstChunkTimeoutMs); the API is slow or unreachable`,
        { provider: this.provider, attempts, isRetryable: true, details: { reason: 'first_chunk_timeout' } },
      )
    }
    if (timedOut === 'idle') {
      return new StreamInterruptedError(
        `[spindle/anthropic] the stream was silent for ${this.#settings.idleTimeoutMs} ms (idleTimeoutMs) and was abandoned; retry the request`,
        { provider: this.provider, attempts, details: { reason: 'idle_timeout' } },
      )
    }
    if (signal?.aborted) return aborted()
    if (streaming && !(error instanceof Anthropic.APIError)) {
      const text = error instanceof Error ? error.message : String(error)
      return new StreamInterruptedError(`[spindle/anthropic] the connection failed mid-stream: ${redactSecrets(text, secrets)}`, {
        provider: this.provider,
        attempts,
      })
    }
    return error
  }
}

function aborted(): AbortedError {
  return new AbortedError('[spindle/anthropic] the request was aborted')
}

// A LanguageModel (spec v1) over Ollama's POST /api/chat: NDJSON streaming, retries before the first part,
// first-chunk and idle timeouts, abort.
import {
  AbortedError,
  ProviderError,
  SpindleError,
  StreamInterruptedError,
  type LanguageModel,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type StreamPart,
} from '@spindle/core'
import { convertRequest } from './convert-request.js'
import { mapOllamaError } from './map-ollama-error.js'
import { OllamaStreamMapper } from './ollama-stream-mapper.js'

/** The resolved settings a model needs (see `OllamaProviderOptions`). */
export interface OllamaModelSettings {
  baseURL: string
  apiKey?: string
  headers: Record<string, string>
  fetch: typeof globalThis.fetch
  maxRetries: number
  initialDelayMs: number
  maxDelayMs: number
  firstChunkTimeoutMs: number
  idleTimeoutMs: number
  capabilities: ModelCapabilities
}

class TimeoutReason {
  constructor(
    readonly kind: 'first-chunk' | 'idle',
    readonly ms: number,
  ) {}
}

export class OllamaChatModel implements LanguageModel {
  readonly specificationVersion = 'v1' as const
  readonly provider = 'ollama'
  readonly capabilities: ModelCapabilities

  constructor(
    readonly modelId: string,
    private readonly settings: OllamaModelSettings,
  ) {
    this.capabilities = settings.capabilities
  }

  async *stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<StreamPart> {
    const body = JSON.stringify(convertRequest(this.modelId, request))
    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) throw new AbortedError('[spindle-provider-ollama] the request was aborted', { cause: options.signal.reason })
      const progress = { yielded: false }
      try {
        yield* this.#attempt(body, options, progress)
        return
      } catch (error) {
        const retryable = SpindleError.isInstance(error) && error.isRetryable && error.code !== 'aborted'
        if (!retryable || progress.yielded || attempt >= this.settings.maxRetries) throw error
        const hinted = ProviderError.isInstance(error) ? error.retryAfterMs : undefined
        await sleep(hinted ?? Math.min(this.settings.maxDelayMs, this.settings.initialDelayMs * 2 ** attempt), options.signal)
      }
    }
  }

  async *#attempt(body: string, options: ModelCallOptions, progress: { yielded: boolean }): AsyncGenerator<StreamPart> {
    const { settings } = this
    const controller = new AbortController()
    const onAbort = () => controller.abort(options.signal?.reason)
    options.signal?.addEventListener('abort', onAbort, { once: true })
    let timer: ReturnType<typeof setTimeout> | undefined
    const arm = (reason: TimeoutReason) => {
      clearTimeout(timer)
      timer = setTimeout(() => controller.abort(reason), reason.ms)
    }
    const fail = (error: unknown, phase: 'request' | 'body'): SpindleError => {
      if (options.signal?.aborted) return new AbortedError('[spindle-provider-ollama] the request was aborted', { cause: error })
      const reason: unknown = controller.signal.reason
      if (reason instanceof TimeoutReason) {
        return new StreamInterruptedError(
          `[spindle-provider-ollama] no data from Ollama for ${reason.ms} ms (${reason.kind} timeout); retry, or raise the timeout for slow models`,
          { cause: error, provider: 'ollama' },
        )
      }
      if (phase === 'body')
        return new StreamInterruptedError('[spindle-provider-ollama] the connection was lost mid-stream', { cause: error, provider: 'ollama' })
      return new ProviderError(
        `[spindle-provider-ollama] could not reach Ollama at ${settings.baseURL}: ${(error as Error)?.message}. Is \`ollama serve\` running?`,
        {
          cause: error,
          provider: 'ollama',
          isRetryable: true,
        },
      )
    }
    arm(new TimeoutReason('first-chunk', settings.firstChunkTimeoutMs))
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/x-ndjson', ...settings.headers, ...options.headers }
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
      let response: Response
      try {
        response = await settings.fetch(`${settings.baseURL}/api/chat`, { method: 'POST', headers, body, signal: controller.signal })
      } catch (error) {
        throw fail(error, 'request')
      }
      const secrets = settings.apiKey ? [settings.apiKey] : []
      if (!response.ok || response.body === null) {
        const text = await response.text().catch(() => '')
        throw mapOllamaError({ status: response.status, message: errorText(text, response.statusText), headers: response.headers, secrets })
      }
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      const mapper = new OllamaStreamMapper(secrets)
      let buffer = ''
      let received = false
      for (;;) {
        if (options.signal?.aborted) throw fail(options.signal.reason, 'body')
        if (received) arm(new TimeoutReason('idle', settings.idleTimeoutMs))
        let chunk: Awaited<ReturnType<typeof reader.read>>
        try {
          chunk = await reader.read()
        } catch (error) {
          throw fail(error, 'body')
        }
        clearTimeout(timer)
        received = true
        buffer += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true })
        const lines = buffer.split('\n')
        buffer = chunk.done ? '' : (lines.pop() ?? '')
        for (const line of lines) {
          if (line.trim() === '') continue
          for (const part of mapper.map(line)) {
            progress.yielded = true
            yield part
          }
          if (mapper.finished) return
        }
        if (chunk.done) break
      }
      throw new StreamInterruptedError('[spindle-provider-ollama] the stream ended before its `done: true` line; the answer is incomplete', {
        provider: 'ollama',
      })
    } finally {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      controller.abort()
    }
  }
}

function errorText(body: string, fallback: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown }
    if (typeof parsed.error === 'string') return parsed.error
  } catch {
    // Not JSON: use the raw text.
  }
  return body.trim() || fallback
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError('[spindle-provider-ollama] aborted while waiting to retry', { cause: signal?.reason }))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
}

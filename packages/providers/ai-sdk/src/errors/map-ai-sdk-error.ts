// Translates what an AI SDK model throws or reports in its stream (APICallError, in-band error objects,
// connection failures, a stream cut before its finish) into core's ProviderError family, secrets removed.
import { AbortedError, ContextOverflowError, ProviderError, SpindleError, StreamInterruptedError } from '@spindle/core'
import { APICallError } from '@ai-sdk/provider'

/**
 * What `mapAiSdkError` needs to turn an AI SDK error into a Spindle error: the provider name for the message, a
 * redaction function that keeps secrets out of it, and the number of requests made so far (carried as `attempts`).
 */
export interface ErrorMappingContext {
  /** Provider name used in messages (`google`, `anthropic.messages`…). */
  provider: string
  /** Removes secrets (the API key, credential headers, `sk-…` patterns) from a text. */
  redact(text: string): string
  /** Requests made for this call so far, the adapter's retries included (carried as `attempts`). */
  attempts?: number
}

export interface ErrorMappingOptions {
  /** The error came while reading a stream that had already delivered events: a transport failure is an interruption. */
  midStream?: boolean
}

const contextOverflowPattern =
  /context[_ ](length|window)|maximum context|too many tokens|exceeds? the context|prompt is too long|reduce the length of the messages/i
const endedWithoutFinishPattern = /ended without|without a finish|unexpected end|premature/i

/** The HTTP status an error code or type (OpenAI-, Anthropic- or Google-style) stands for. */
export function statusForErrorCode(code: unknown, type?: unknown): number | undefined {
  const key = `${typeof code === 'string' || typeof code === 'number' ? code : ''} ${typeof type === 'string' ? type : ''}`
  if (/overloaded/.test(key)) return 529
  if (/rate_limit|requests|tokens_exceeded|insufficient_quota|RESOURCE_EXHAUSTED|\b429\b/.test(key)) return 429
  if (/unavailable|UNAVAILABLE|slow_down|\b503\b/.test(key)) return 503
  if (/server_error|internal|INTERNAL|api_error|\b500\b/.test(key)) return 500
  if (/invalid_api_key|authentication|unauthorized|UNAUTHENTICATED|\b401\b/.test(key)) return 401
  if (/permission|forbidden|PERMISSION_DENIED|\b403\b/.test(key)) return 403
  if (/not_found|NOT_FOUND|\b404\b/.test(key)) return 404
  if (/request_too_large|\b413\b/.test(key)) return 413
  if (/context_length|invalid_request|invalid_prompt|bad_request|INVALID_ARGUMENT|\b400\b/.test(key)) return 400
  if (/timeout|DEADLINE_EXCEEDED|\b408\b/.test(key)) return 408
  return undefined
}

/** Milliseconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), header names in any case. */
export function retryAfterFromHeaders(headers: Record<string, string | undefined> | undefined): number | undefined {
  if (!headers) return undefined
  const get = (name: string) => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
    return undefined
  }
  const milliseconds = get('retry-after-ms')
  if (milliseconds) {
    const value = Number.parseFloat(milliseconds)
    if (Number.isFinite(value) && value >= 0) return Math.round(value)
  }
  const header = get('retry-after')
  if (header) {
    const seconds = Number.parseFloat(header)
    if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
    const date = Date.parse(header)
    if (Number.isFinite(date)) return Math.max(0, date - Date.now())
  }
  return undefined
}

/**
 * Maps anything an AI SDK model threw or yielded as an `error` part to a SpindleError. Already-mapped Spindle
 * errors pass through unchanged. The cause kept is a copy with secrets removed (never the raw response body).
 */
export function mapAiSdkError(error: unknown, context: ErrorMappingContext, options: ErrorMappingOptions = {}): SpindleError {
  if (SpindleError.isInstance(error)) return error
  const { provider, attempts } = context
  const prefix = `[spindle/ai-sdk] ${provider}:`
  if (isAbort(error)) return new AbortedError(`${prefix} the request was aborted`)
  if (APICallError.isInstance(error)) {
    const cause = scrubbed(error, context)
    // No status: the API was not reached. A 2xx: the response started, then reading its body failed (a reset).
    if (error.statusCode === undefined || error.statusCode < 300) {
      const text = context.redact(error.message)
      if (options.midStream || error.statusCode !== undefined)
        return new StreamInterruptedError(`${prefix} the connection broke mid-stream (${text}); the answer is incomplete: retry the request`, {
          provider,
          attempts,
          cause,
        })
      return new ProviderError(`${prefix} could not reach the API: ${text}. Check the model's baseURL and the network.`, {
        isRetryable: true,
        provider,
        attempts,
        cause,
      })
    }
    const status = error.statusCode
    const message = context.redact(`${prefix} HTTP ${status}: ${error.message}`) + hint(status)
    const shouldRetry = headerValue(error.responseHeaders, 'x-should-retry')
    return providerError(message, status, {
      retryAfterMs: retryAfterFromHeaders(error.responseHeaders),
      provider,
      attempts,
      cause,
      shouldRetry,
      code: codeOf(error.data),
    })
  }
  if (isInBandErrorObject(error)) {
    const body = error as { message?: unknown; type?: unknown; code?: unknown; status?: unknown; error?: unknown }
    const inner = (typeof body.error === 'object' && body.error !== null ? body.error : body) as typeof body
    const code = inner.code ?? inner.type
    const status = (typeof inner.status === 'number' ? inner.status : undefined) ?? statusForErrorCode(inner.code, inner.type) ?? 500
    const text = typeof inner.message === 'string' ? inner.message : 'no message'
    const message = context.redact(`${prefix} the stream reported an error (${String(code ?? 'unknown')}): ${text}`)
    return providerError(message, status, { provider, attempts, code: typeof code === 'string' ? code : undefined })
  }
  const text = context.redact(error instanceof Error ? error.message : String(error))
  const cause = scrubbed(error, context)
  if (error instanceof Error && endedWithoutFinishPattern.test(error.message)) {
    return new StreamInterruptedError(`${prefix} the stream ended before its finish (${text}); the answer is incomplete: retry the request`, {
      provider,
      attempts,
      cause,
    })
  }
  // A JSON line cut in the middle is what a connection closed mid-event looks like to the SSE parser.
  if (options.midStream && error instanceof Error && /JSONParseError/.test(error.name)) {
    return new StreamInterruptedError(`${prefix} the stream broke mid-event (${text}); the answer is incomplete: retry the request`, {
      provider,
      attempts,
      cause,
    })
  }
  if (isMalformedResponse(error)) {
    return new ProviderError(`${prefix} the API sent a response the model could not read: ${text}`, { isRetryable: false, provider, attempts, cause })
  }
  if (options.midStream) {
    return new StreamInterruptedError(`${prefix} the connection broke mid-stream (${text}), before the finish; the answer is incomplete: retry the request`, {
      provider,
      attempts,
      cause,
    })
  }
  // A network failure before the first event (undici's `terminated`, a reset): retryable, like a refused connection.
  return new ProviderError(`${prefix} the request failed: ${text}`, { isRetryable: true, provider, attempts, cause })
}

interface ProviderErrorFields {
  retryAfterMs?: number
  provider: string
  attempts?: number
  cause?: unknown
  shouldRetry?: string
  code?: string
}

function providerError(message: string, status: number, fields: ProviderErrorFields): ProviderError {
  const { retryAfterMs, provider, attempts, cause, shouldRetry, code } = fields
  const details = code ? { code } : undefined
  if ((status === 400 || status === 413) && (code === 'context_length_exceeded' || contextOverflowPattern.test(message))) {
    return new ContextOverflowError(message, { status, provider, attempts, cause, details })
  }
  let isRetryable: boolean | undefined
  if (code === 'insufficient_quota') isRetryable = false
  if (shouldRetry === 'true') isRetryable = true
  if (shouldRetry === 'false') isRetryable = false
  return new ProviderError(message, { status, retryAfterMs, provider, attempts, cause, details, ...(isRetryable === undefined ? {} : { isRetryable }) })
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted')
}

/** An error object a provider put in its stream as it came from the API (`{ type, message }`, `{ code, message }`). */
function isInBandErrorObject(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || error instanceof Error) return false
  const record = error as Record<string, unknown>
  return 'message' in record || 'type' in record || 'code' in record || (typeof record.error === 'object' && record.error !== null)
}

function isMalformedResponse(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  return error instanceof SyntaxError || /AI_(TypeValidationError|JSONParseError|InvalidResponseDataError)/.test(error.name)
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
  return undefined
}

function codeOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined
  const record = data as { code?: unknown; type?: unknown; error?: { code?: unknown; type?: unknown } }
  const code = record.error?.code ?? record.code ?? record.error?.type ?? record.type
  return typeof code === 'string' ? code : undefined
}

function hint(status: number): string {
  if (status === 401) return ' — check the API key the AI SDK provider was created with.'
  if (status === 403) return ' — the key may lack access to this model.'
  if (status === 404) return ' — check the model id and the provider baseURL.'
  return ''
}

/** A copy of the error (and its causes) with secrets removed from the messages and no response body. */
function scrubbed(error: unknown, context: ErrorMappingContext, depth = 0): unknown {
  if (typeof error === 'string') return context.redact(error)
  if (!(error instanceof Error) || depth > 8) return undefined
  const inner = scrubbed(error.cause, context, depth + 1)
  const copy = new Error(context.redact(error.message), inner === undefined ? undefined : { cause: inner })
  copy.name = error.name
  const status = (error as { statusCode?: unknown }).statusCode
  if (typeof status === 'number') Object.assign(copy, { statusCode: status })
  return copy
}

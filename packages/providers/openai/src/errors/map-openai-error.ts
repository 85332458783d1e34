// Translates what the openai SDK throws (HTTP errors, in-band stream errors, connection failures)
// into core's ProviderError family, and keeps the API key and credential headers out of every message.
import { AbortedError, ContextOverflowError, ProviderError, redactionMarker, SpindleError, StreamInterruptedError } from '@spindle/core'
import { APIConnectionError, APIError, APIUserAbortError } from 'openai'

/**
 * What `mapOpenAIError` needs to turn an OpenAI SDK error into a Spindle error: the provider name for the message,
 * the secrets to scrub from it, and the number of requests made so far (carried as `attempts`).
 */
export interface ErrorMappingContext {
  /** Provider name used in messages (`openai`, `ollama`…). */
  provider: string
  /** Secrets to scrub from messages (the API key, the values of credential-bearing headers). */
  secrets: readonly string[]
  /**
   * Requests made for this call so far, Spindle's retries included. Carried by every ProviderError (as
   * `attempts`) so the runtime knows the provider already retried and does not retry the call once more.
   */
  attempts?: number
}

export interface ErrorMappingOptions {
  /**
   * The error came from reading a stream that had already delivered events: a network failure then
   * means the stream broke before its terminal event (StreamInterruptedError), not that the API was unreachable.
   */
  midStream?: boolean
}

const contextOverflowPattern =
  /context[_ ](length|window)|maximum context|too many tokens|exceeds? the context|prompt is too long|reduce the length of the messages/i

/** The HTTP status an OpenAI error code/type stands for, when an in-band error carries no status. */
export function statusForOpenAIErrorCode(code: string | null | undefined, type?: string | null): number | undefined {
  const key = `${code ?? ''} ${type ?? ''}`
  if (/rate_limit|requests|tokens_exceeded|insufficient_quota/.test(key)) return 429
  if (/overloaded|unavailable|slow_down/.test(key)) return 503
  if (/server_error|internal|api_error/.test(key)) return 500
  if (/invalid_api_key|authentication|unauthorized/.test(key)) return 401
  if (/permission|forbidden/.test(key)) return 403
  if (/not_found|model_not_found/.test(key)) return 404
  if (/context_length|invalid_request|invalid_prompt|bad_request|response_failed/.test(key)) return 400
  if (/timeout/.test(key)) return 408
  return undefined
}

/** Milliseconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: { get(name: string): string | null } | undefined): number | undefined {
  if (!headers) return undefined
  const milliseconds = headers.get('retry-after-ms')
  if (milliseconds) {
    const value = Number.parseFloat(milliseconds)
    if (Number.isFinite(value) && value >= 0) return Math.round(value)
  }
  const header = headers.get('retry-after')
  if (header) {
    const seconds = Number.parseFloat(header)
    if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
    const date = Date.parse(header)
    if (Number.isFinite(date)) return Math.max(0, date - Date.now())
  }
  return undefined
}

/** Replaces every secret in `text` with core's `redactionMarker` (`[REDACTED]`), the marker of every Spindle package. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text
  for (const secret of secrets) if (secret && secret.length >= 4) result = result.split(secret).join(redactionMarker)
  return result
}

/**
 * Builds the ProviderError for an error reported inside the stream (a Responses `error` event or
 * `response.failed`), mapping its code to a status so retry rules apply.
 */
export function inBandProviderError(
  context: ErrorMappingContext,
  error: { code?: string | null; type?: string | null; message?: string | null },
): ProviderError {
  const status = statusForOpenAIErrorCode(error.code, error.type) ?? 500
  const message = redact(
    `[spindle/${context.provider}] the stream reported an error (${error.code ?? error.type ?? 'unknown'}): ${error.message ?? 'no message'}`,
    context.secrets,
  )
  return buildProviderError(context, message, status, undefined, error.code ?? undefined, undefined)
}

/**
 * Maps anything thrown while calling the API to a SpindleError. Already-mapped Spindle errors pass
 * through unchanged.
 */
export function mapOpenAIError(error: unknown, context: ErrorMappingContext, options: ErrorMappingOptions = {}): SpindleError {
  if (SpindleError.isInstance(error)) return error
  if (error instanceof APIUserAbortError) return new AbortedError(`[spindle/${context.provider}] the request was aborted`)
  if (options.midStream && isTransportFailure(error)) {
    const text = error instanceof Error ? error.message : String(error)
    return new StreamInterruptedError(
      `[spindle/${context.provider}] the connection broke mid-stream (${redact(text, context.secrets)}), before the terminal event; the answer is incomplete: retry the request`,
      { provider: context.provider, attempts: context.attempts, cause: scrubbed(error, context) },
    )
  }
  if (error instanceof APIConnectionError) {
    return new ProviderError(
      `[spindle/${context.provider}] could not reach the API: ${withoutFinalPeriod(redact(error.message, context.secrets))} (${requestsMade(context.attempts)}). Check baseURL and the network.`,
      { isRetryable: true, provider: context.provider, attempts: context.attempts, cause: scrubbed(error, context) },
    )
  }
  if (error instanceof APIError) {
    const body = (error.error ?? {}) as { message?: string; code?: string | null; type?: string | null }
    const status = error.status ?? statusForOpenAIErrorCode(error.code ?? body.code, error.type ?? body.type) ?? 500
    const origin = error.status === undefined ? 'the stream reported' : `HTTP ${status}`
    const message = redact(`[spindle/${context.provider}] ${origin}: ${body.message ?? error.message}`, context.secrets) + hint(status)
    const retryAfterMs = retryAfterFromHeaders(error.headers)
    const shouldRetry = error.headers?.get('x-should-retry')
    const code = error.code ?? body.code ?? undefined
    return buildProviderError(context, message, status, retryAfterMs, code, scrubbed(error, context), shouldRetry)
  }
  const text = error instanceof Error ? error.message : String(error)
  // A network failure before the first event (undici's `terminated`, a reset): retryable, like a refused connection.
  return new ProviderError(`[spindle/${context.provider}] the request failed: ${redact(text, context.secrets)}`, {
    isRetryable: true,
    provider: context.provider,
    attempts: context.attempts,
    cause: scrubbed(error, context),
  })
}

/** `Connection error.` → `Connection error`, so a sentence of ours can follow without a double period. */
export function withoutFinalPeriod(text: string): string {
  return text.replace(/\.+\s*$/, '')
}

/** "1 request made", "3 requests made": true whether or not the call is retried after this error. */
function requestsMade(attempts: number | undefined): string {
  const count = attempts ?? 1
  return `${count} request${count === 1 ? '' : 's'} made`
}

/**
 * A failure of the connection rather than an answer from the API: undici reports a body cut mid-stream
 * as a TypeError `terminated`, other fetch implementations throw their own errors. API errors (in-band
 * `error` events) and malformed events (SyntaxError) are answers, not interruptions.
 */
function isTransportFailure(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true
  return !(error instanceof APIError) && !(error instanceof SyntaxError)
}

function buildProviderError(
  context: ErrorMappingContext,
  message: string,
  status: number,
  retryAfterMs: number | undefined,
  code: string | undefined,
  cause: unknown,
  shouldRetryHeader?: string | null,
): ProviderError {
  const details = code ? { code: redact(code, context.secrets) } : undefined
  if (status === 400 || status === 413 || code === 'context_length_exceeded') {
    if (code === 'context_length_exceeded' || contextOverflowPattern.test(message)) {
      return new ContextOverflowError(message, { status, provider: context.provider, attempts: context.attempts, cause, details })
    }
  }
  let isRetryable: boolean | undefined
  if (code === 'insufficient_quota') isRetryable = false
  if (shouldRetryHeader === 'true') isRetryable = true
  if (shouldRetryHeader === 'false') isRetryable = false
  return new ProviderError(message, {
    status,
    retryAfterMs,
    provider: context.provider,
    attempts: context.attempts,
    cause,
    details,
    ...(isRetryable === undefined ? {} : { isRetryable }),
  })
}

function hint(status: number): string {
  if (status === 401) return ' — check the API key (apiKey option or OPENAI_API_KEY).'
  if (status === 403) return ' — the key may lack access to this model or organization.'
  if (status === 404) return ' — check the model id and baseURL.'
  return ''
}

/**
 * The cause kept on a mapped error: the original, or, when its message, its API error body or anything in its own
 * `cause` chain holds a secret (fetch quotes a base URL with its password), a copy of the chain with the secrets
 * removed from the messages and without the body.
 */
function scrubbed(error: unknown, context: ErrorMappingContext): unknown {
  if (typeof error === 'string') return redact(error, context.secrets)
  if (!(error instanceof Error) || !holdsSecret(error, context.secrets, 0)) return error
  return scrubbedCopy(error, context.secrets, 0)
}

const maxCauseDepth = 8

function holdsSecret(error: unknown, secrets: readonly string[], depth: number): boolean {
  if (depth > maxCauseDepth || error === undefined || error === null) return false
  if (typeof error === 'string') return redact(error, secrets) !== error
  if (!(error instanceof Error)) return false
  const body = error instanceof APIError ? jsonOf(error.error) : ''
  return redact(error.message, secrets) !== error.message || redact(body, secrets) !== body || holdsSecret(error.cause, secrets, depth + 1)
}

function scrubbedCopy(error: Error, secrets: readonly string[], depth: number): Error {
  const inner = error.cause
  const cause =
    depth >= maxCauseDepth
      ? undefined
      : inner instanceof Error
        ? scrubbedCopy(inner, secrets, depth + 1)
        : typeof inner === 'string'
          ? redact(inner, secrets)
          : undefined
  const copy = new Error(redact(error.message, secrets), cause === undefined ? undefined : { cause })
  copy.name = error.name
  if (error instanceof APIError) Object.assign(copy, { status: error.status, requestID: error.requestID })
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code: typeof code === 'string' ? redact(code, secrets) : code })
  return copy
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}

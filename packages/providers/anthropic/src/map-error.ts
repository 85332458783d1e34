// SDK and HTTP errors → core errors. Messages name the plugin, tell the user what to do,
// and never carry the API key (the SDK error is kept as a redacted cause).
import Anthropic from '@anthropic-ai/sdk'
import { AbortedError, ContextOverflowError, ProviderError, redactionMarker, SpindleError } from '@spindle/core'

/** HTTP status of each Anthropic `error.type`, used for in-band stream errors that carry no status. */
const statusOfErrorType: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
}

const contextOverflowPattern = /prompt is too long|too many (input )?tokens|context (window|length)|exceeds? (the )?(model'?s? )?(maximum )?context/i

export interface ErrorMappingContext {
  provider: string
  apiKey: string | undefined
  /** Further values to keep out of errors: the credential headers given to the provider and the call. */
  secrets?: readonly string[]
  /**
   * Requests made for this call so far, Spindle's retries included. Carried by every ProviderError (as
   * `attempts`) so the runtime knows the provider already retried and does not retry the call once more.
   */
  attempts?: number
  now?: () => number
}

/** Maps anything the SDK throws; SpindleErrors pass through unchanged. */
export function mapAnthropicError(error: unknown, context: ErrorMappingContext): SpindleError {
  if (SpindleError.isInstance(error)) return error
  const redact = (text: string) => redactSecrets(text, [context.apiKey, ...(context.secrets ?? [])])
  if (error instanceof Anthropic.APIUserAbortError) return new AbortedError('[spindle/anthropic] the request was aborted')
  if (error instanceof Anthropic.APIConnectionError) {
    const timeout = error instanceof Anthropic.APIConnectionTimeoutError
    return new ProviderError(
      `[spindle/anthropic] ${timeout ? 'the request timed out' : 'could not reach the Anthropic API'}: ${withoutFinalPeriod(redact(error.message))} (${requestsMade(context.attempts)}). Check the network and baseURL.`,
      { provider: context.provider, attempts: context.attempts, isRetryable: true, cause: sanitizedCause(error, redact) },
    )
  }
  if (error instanceof Anthropic.APIError) {
    const type = error.type ?? undefined
    const inBand = error.status === undefined
    const status = error.status ?? (type ? statusOfErrorType[type] : undefined) ?? 500
    const apiMessage = redact(error.apiMessage ?? error.message)
    const requestId = error.requestID ?? (error.error as { request_id?: string } | undefined)?.request_id ?? undefined
    const retryAfterMs = inBand ? undefined : parseRetryAfter(error.headers, context.now?.() ?? Date.now())
    const where = inBand ? 'in-band stream error' : `HTTP ${status}`
    const message =
      redact(`[spindle/anthropic] ${where}${type ? ` ${type}` : ''}: ${withoutFinalPeriod(apiMessage)}${requestId ? ` (request-id ${requestId})` : ''}. `) +
      advice(status, type)
    const options = {
      status,
      provider: context.provider,
      attempts: context.attempts,
      cause: sanitizedCause(error, redact),
      details: { type, requestId: requestId === undefined ? undefined : redact(requestId), inBand },
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    }
    if ((status === 400 || status === 413) && contextOverflowPattern.test(apiMessage)) return new ContextOverflowError(message, options)
    return new ProviderError(message, options)
  }
  const text = error instanceof Error ? error.message : String(error)
  return new ProviderError(`[spindle/anthropic] ${redact(text)}`, {
    provider: context.provider,
    attempts: context.attempts,
    cause: error instanceof Error ? sanitizedCause(error, redact) : undefined,
  })
}

/** `Connection error.` → `Connection error`, so a sentence of ours can follow without a double period. */
function withoutFinalPeriod(text: string): string {
  return text.replace(/\.+\s*$/, '')
}

/** "1 request made", "3 requests made": true whether or not the call is retried after this error. */
function requestsMade(attempts: number | undefined): string {
  const count = attempts ?? 1
  return `${count} request${count === 1 ? '' : 's'} made`
}

function advice(status: number, type: string | undefined): string {
  if (status === 401) return 'Check the API key (apiKey option or ANTHROPIC_API_KEY).'
  if (status === 403) return 'The API key lacks permission for this model or feature.'
  if (status === 429) return 'Rate limited: retry later or lower the request rate.'
  if (status === 529 || type === 'overloaded_error') return 'Anthropic is overloaded: retry later.'
  if (status >= 500) return 'Anthropic failed: retry later.'
  if (status === 413) return 'The request is too large: send fewer or smaller messages.'
  if (status === 404) return 'Check the model id and baseURL.'
  return 'Check the request.'
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(headers: Headers | undefined, now: number): number | undefined {
  if (!headers) return undefined
  const ms = headers.get('retry-after-ms')
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = headers.get('retry-after')
  if (value === null || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export function redactSecret(text: string, secret: string | undefined): string {
  return redactSecrets(text, [secret])
}

/** Replaces with core's `redactionMarker` (`[REDACTED]`) each secret (4 characters or more, so short values cannot mangle messages) and anything shaped like an Anthropic key. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text
  for (const secret of secrets) if (secret && secret.length >= 4) result = result.split(secret).join(redactionMarker)
  return result.replace(/sk-ant-[A-Za-z0-9_-]{8,}/g, redactionMarker)
}

/** A copy of the SDK error whose message and body cannot leak the key. */
function sanitizedCause(error: Error, redact: (text: string) => string): Error {
  const copy = new Error(redact(error.message))
  copy.name = error.name
  if (error instanceof Anthropic.APIError) {
    Object.assign(copy, { status: error.status, type: error.type, requestID: error.requestID == null ? error.requestID : redact(error.requestID) })
  }
  return copy
}

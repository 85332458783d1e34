// Maps what ended a run (a typed provider error, a timeout, an abort, anything thrown) to the RunError it records.
import { SpindleError } from '../errors/spindle-error.js'
import type { RunError } from '../spec/run-error.js'

interface ProviderLike {
  status?: number
  provider?: string
  details?: Record<string, unknown>
}

/**
 * The `RunError` a run records for `error`: a `ProviderError` gets a distinct code from its status (see `RunError`),
 * with `status`, `retryable` and `provider`; another `SpindleError` keeps its code (`aborted` becomes `cancelled`); a
 * plain error is `error`.
 *
 * @example
 * runErrorOf(new ProviderError('HTTP 429', { status: 429, provider: 'openai' }))
 * // { code: 'provider_rate_limit', message: 'HTTP 429', status: 429, retryable: true, provider: 'openai' }
 */
export function runErrorOf(error: unknown): RunError {
  if (!SpindleError.isInstance(error)) return { code: 'error', message: error instanceof Error ? error.message : String(error) }
  const { status, provider } = error as unknown as ProviderLike
  const code = runErrorCode(error)
  return {
    code,
    message: error.message,
    ...(typeof status === 'number' ? { status } : {}),
    retryable: error.isRetryable,
    ...(typeof provider === 'string' ? { provider } : {}),
  }
}

function runErrorCode(error: SpindleError): string {
  switch (error.code) {
    case 'aborted':
      return 'cancelled'
    case 'context_overflow':
      return 'context_length'
    case 'provider':
      return providerCode(error as unknown as ProviderLike, error.isRetryable)
    default:
      return error.code
  }
}

function providerCode(error: ProviderLike, retryable: boolean): string {
  const { status, details } = error
  if (status === undefined) {
    if (details?.reason === 'first_chunk_timeout') return 'provider_timeout'
    // No answer at all: the connection failed (a mapped SDK connection error is retryable and carries no status).
    return retryable ? 'provider_unreachable' : 'provider'
  }
  if (status === 401 || status === 403) return 'provider_auth'
  if (status === 429) return 'provider_rate_limit'
  if (status === 529 || status === 503 || details?.type === 'overloaded_error') return 'provider_overloaded'
  if (status === 408 || status === 504) return 'provider_timeout'
  if (status >= 500) return 'provider_server'
  if (status >= 400) return 'provider_bad_request'
  return 'provider'
}

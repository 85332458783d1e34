// Bounded, jittered retries: which errors are retried and how long to wait before the next attempt.
import { AbortedError, SpindleError } from '@spindle/core'

/**
 * How the Anthropic provider retries a request that failed before any output: bounded attempts, exponential
 * backoff with full jitter, and the API's `retry-after` when it is short enough. Retried: 408, 409, 429, 5xx
 * (529 overloaded included), network errors and a first chunk that never came.
 *
 * @example
 * createAnthropic({ apiKey, retry: { maxRetries: 4, maxDelayMs: 20_000 } })
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number
  /** First backoff delay; doubles per attempt, with full jitter (default 500 ms). */
  initialDelayMs?: number
  /** Cap of one backoff delay (default 8 s). */
  maxDelayMs?: number
  /** A `retry-after` longer than this is not waited for: the error is returned at once (default 60 s). */
  maxRetryAfterMs?: number
}

const retryableStatuses = new Set([408, 409, 429, 500, 502, 503, 504, 529])

/** Whether an error may be retried: retryable statuses (and 5xx), network errors, first-chunk timeouts. */
export function isRetryableError(error: unknown): boolean {
  if (!SpindleError.isInstance(error) || AbortedError.isInstance(error)) return false
  const status = (error as { status?: number }).status
  if (status !== undefined) return retryableStatuses.has(status) || status >= 500
  return error.isRetryable
}

/**
 * The wait before retry number `attempt` (1-based), or `undefined` when no retry should happen.
 * A `retry-after` from the server wins over the backoff.
 */
export function retryDelayMs(attempt: number, error: unknown, options: RetryOptions = {}, random: () => number = Math.random): number | undefined {
  const maxRetries = options.maxRetries ?? 2
  if (attempt > maxRetries || !isRetryableError(error)) return undefined
  const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs
  if (retryAfterMs !== undefined) return retryAfterMs <= (options.maxRetryAfterMs ?? 60_000) ? retryAfterMs : undefined
  const initial = options.initialDelayMs ?? 500
  const cap = Math.min(options.maxDelayMs ?? 8_000, initial * 2 ** (attempt - 1))
  // Half fixed, half random: spreads clients out without ever retrying instantly.
  return Math.round(cap / 2 + random() * (cap / 2))
}

/** Sleeps, rejecting with AbortedError when the signal fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('[spindle/anthropic] the request was aborted'))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError('[spindle/anthropic] the request was aborted'))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

// Bounded, jittered exponential backoff that honours Retry-After, and an abortable sleep.
import { AbortedError, SpindleError } from '@spindle/core'

/**
 * How the OpenAI provider retries a request that failed before any output: bounded attempts, exponential backoff
 * with full jitter, and the API's `Retry-After` when it is short enough. Errors after the first streamed part are never
 * retried.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). Only errors before any output are retried. */
  maxRetries: number
  /** First backoff delay (default 500 ms); doubles per attempt, with full jitter in [50%, 100%]. */
  initialDelayMs: number
  /** Backoff cap (default 8 s). */
  maxDelayMs: number
  /** A Retry-After longer than this is not waited for: the error is surfaced instead (default 60 s). */
  maxRetryAfterMs: number
}

export const defaultRetryOptions: RetryOptions = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 }

/** The delay before retry number `attempt` (0-based), or `undefined` when the error must not be retried. */
export function retryDelay(error: unknown, attempt: number, options: RetryOptions, random: () => number = Math.random): number | undefined {
  if (attempt >= options.maxRetries) return undefined
  if (!SpindleError.isInstance(error) || !error.isRetryable) return undefined
  const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs
  if (retryAfterMs !== undefined) return retryAfterMs <= options.maxRetryAfterMs ? retryAfterMs : undefined
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** attempt)
  return Math.round(ceiling * (0.5 + random() * 0.5))
}

/** Sleeps, rejecting with AbortedError as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined, provider: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError(`[spindle/${provider}] aborted while waiting to retry`))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError(`[spindle/${provider}] aborted while waiting to retry`))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

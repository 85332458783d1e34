// Ollama's HTTP and in-stream errors → Spindle's error classes, with secrets redacted from every message.
import { ContextOverflowError, ProviderError } from '@spindle/core'

const contextOverflow = /context (length|window)|exceeds the (maximum )?context|too many tokens/i

/** Parses `Retry-After` (seconds or an HTTP date) and `retry-after-ms` into milliseconds. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms'))
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get('retry-after')
  if (value === null) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/**
 * Maps an error reported by Ollama: an HTTP status with `{"error": "..."}`, or an in-stream `{"error": "..."}`
 * line (no status: treated as a server error, 500).
 */
export function mapOllamaError(input: { status?: number; message: string; headers?: Headers; secrets: string[] }): ProviderError {
  const status = input.status ?? 500
  const message = `[spindle-provider-ollama] ${input.status === undefined ? 'stream error' : `HTTP ${status}`}: ${redact(input.message, input.secrets)}`
  const options = { status, provider: 'ollama', retryAfterMs: input.headers ? retryAfterMs(input.headers) : undefined }
  if ((status === 400 || status === 413 || status === 500) && contextOverflow.test(input.message)) {
    return new ContextOverflowError(`${message}. Shorten the conversation or raise the model's num_ctx.`, options)
  }
  if (status === 401 || status === 403) return new ProviderError(`${message}. Check the apiKey given to createOllama().`, { ...options, isRetryable: false })
  if (status === 404) return new ProviderError(`${message}. Pull the model first: ollama pull <model>.`, { ...options, isRetryable: false })
  return new ProviderError(message, options)
}

/** Removes every secret (the API key) from a text. */
export function redact(text: string, secrets: string[]): string {
  let result = text
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join('[redacted]')
  return result
}

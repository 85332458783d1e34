// Runs an AI SDK model's `doStream` with Spindle's guarantees: bounded retries before any output, a first-chunk and
// an idle timeout, abort at any point (AbortedError), errors mapped to core errors, and a stream that ends without
// its finish reported as interrupted — never as a complete answer. (The design of @spindle/openai's driver.)
import { AbortedError, ProviderError, StreamInterruptedError, type StreamPart } from '@spindle/core'
import { mapAiSdkError, type ErrorMappingContext } from '../errors/map-ai-sdk-error.js'
import type { AiSdkStreamPart } from './ai-sdk-types.js'
import { retryDelay, sleep, type RetryOptions } from './retry-policy.js'
import { AiSdkStreamMapper, type AiSdkCallMetadata } from './stream-mapper.js'

export interface StreamTimeouts {
  /** From calling `doStream` to the first stream part. */
  firstChunkMs: number
  /** Between two stream parts (time the consumer spends on a part is not counted). */
  idleMs: number
}

export interface DriveStreamOptions {
  errors: ErrorMappingContext
  retry: RetryOptions
  timeouts: StreamTimeouts
  signal: AbortSignal | undefined
  /** Calls `doStream` with the attempt's signal. */
  open(signal: AbortSignal): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }>
  /** Receives what the call reported besides its parts, once it finished. */
  onMetadata?: (metadata: AiSdkCallMetadata) => void
}

type Stop = 'first-chunk' | 'idle' | undefined

/**
 * Yields the mapped parts. An error before any output is thrown (after the allowed retries); after output it is
 * yielded as an `error` part and the stream ends. An abort always throws AbortedError.
 */
export async function* driveStream(options: DriveStreamOptions): AsyncGenerator<StreamPart> {
  const { errors, signal } = options
  const aborted = () => new AbortedError(`[spindle/ai-sdk] ${errors.provider}: the request was aborted`)
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw aborted()
    const attemptErrors: ErrorMappingContext = { ...errors, attempts: attempt + 1 }
    const controller = new AbortController()
    let stop: Stop
    // One watchdog timer per attempt, re-armed for the time left, so the per-part cost is two assignments.
    let phase: 'first-chunk' | 'idle' = 'first-chunk'
    let waiting = true
    let waitingSince = Date.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const limit = () => (phase === 'first-chunk' ? options.timeouts.firstChunkMs : options.timeouts.idleMs)
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const elapsed = Date.now() - waitingSince
        if (waiting && elapsed >= limit()) {
          stop = phase
          controller.abort()
        } else watch(waiting ? limit() - elapsed : limit())
      }, ms)
    }
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    let committed = false
    let held: StreamPart | undefined
    let reader: ReadableStreamDefaultReader<AiSdkStreamPart> | undefined
    const mapper = new AiSdkStreamMapper(attemptErrors)
    const out: StreamPart[] = []
    try {
      watch(options.timeouts.firstChunkMs)
      const result = await raceAbort(options.open(controller.signal), controller.signal)
      reader = result.stream.getReader()
      // A timeout or an abort cancels the reader, which ends a pending read even when the model ignores its signal.
      const current = reader
      controller.signal.addEventListener('abort', () => void current.cancel().catch(() => {}), { once: true })
      for (;;) {
        waiting = true
        if (phase === 'idle') waitingSince = Date.now()
        const next = await reader.read()
        waiting = false
        if (next.done) break
        out.length = 0
        mapper.map(next.value, out)
        if (out.length === 0) continue
        if (phase === 'first-chunk') {
          phase = 'idle'
          clearTimeout(timer)
          watch(options.timeouts.idleMs)
        }
        for (const part of out) {
          // Metadata is held back until the attempt commits to output: a retried attempt leaves no trace.
          if (!committed) {
            if (part.type === 'response-metadata') {
              held = part
              continue
            }
            committed = true
            if (held) yield held
            held = undefined
          }
          yield part
          if (signal?.aborted) throw aborted()
        }
      }
      if (signal?.aborted) throw aborted()
      if (stop) throw timeoutError(stop, options.timeouts, attemptErrors)
      mapper.end()
      options.onMetadata?.(mapper.metadata)
      return
    } catch (caught) {
      clearTimeout(timer)
      let error
      if (signal?.aborted) error = new AbortedError(`[spindle/ai-sdk] ${errors.provider}: the request was aborted`, { cause: caught })
      else if (stop) error = timeoutError(stop, options.timeouts, attemptErrors)
      else error = mapAiSdkError(caught, attemptErrors, { midStream: phase === 'idle' })
      if (error.code === 'aborted') throw error
      if (committed) {
        yield { type: 'error', error }
        return
      }
      const delay = retryDelay(error, attempt, options.retry)
      if (delay === undefined) throw error
      await sleep(delay, signal, errors.provider)
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      // Closes the connection when the consumer stopped early or an error ended the attempt.
      controller.abort()
      reader?.cancel().catch(() => {})
    }
  }
}

/** Some models ignore their abort signal while waiting; the race makes a timeout or an abort end the wait at once. */
function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function timeoutError(stop: NonNullable<Stop>, timeouts: StreamTimeouts, errors: ErrorMappingContext): ProviderError {
  const { provider, attempts } = errors
  if (stop === 'first-chunk') {
    return new ProviderError(`[spindle/ai-sdk] ${provider}: no response within ${timeouts.firstChunkMs} ms (first-chunk timeout); raise timeouts.firstChunkMs for slow models`, {
      isRetryable: true,
      provider,
      attempts,
    })
  }
  return new StreamInterruptedError(`[spindle/ai-sdk] ${provider}: the stream stalled for ${timeouts.idleMs} ms (idle timeout); raise timeouts.idleMs if the model pauses longer`, {
    provider,
    attempts,
  })
}

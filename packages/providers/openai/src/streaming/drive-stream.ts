// Runs a streaming API call with Spindle's guarantees: bounded retries before any output, a first-chunk
// and an idle timeout, abort at any point (AbortedError), errors mapped to core errors, and a stream
// that ends without its terminal event reported as interrupted — never as a complete answer.
import { AbortedError, ProviderError, StreamInterruptedError, type StreamPart } from '@spindle/core'
import { mapOpenAIError, type ErrorMappingContext } from '../errors/map-openai-error.js'
import { retryDelay, sleep, type RetryOptions } from './retry-policy.js'
import type { StreamMapper } from './stream-mapper.js'

/** The stream's timeouts: until the first event, and between events. */
export interface StreamTimeouts {
  /** From sending the request to the first stream event. */
  firstChunkMs: number
  /** Between two stream events (time the consumer spends on a part is not counted). */
  idleMs: number
}

export interface DriveStreamOptions<Event> {
  errors: ErrorMappingContext
  retry: RetryOptions
  timeouts: StreamTimeouts
  signal: AbortSignal | undefined
  /** Sends the request; resolves to the SDK's event stream once the response headers arrived. */
  open(signal: AbortSignal): Promise<AsyncIterable<Event>>
  /** A fresh mapper per attempt; `errors` is the mapping context of that attempt (it counts the requests made). */
  createMapper(errors: ErrorMappingContext): StreamMapper<Event>
}

type Stop = { kind: 'first-chunk' } | { kind: 'idle' } | undefined

/**
 * Yields the mapped parts. An error before any output is thrown (after the allowed retries);
 * after output it is yielded as an `error` part and the stream ends. An abort always throws AbortedError.
 * Every ProviderError carries `attempts` (the requests made for this call): the retries are spent here,
 * and the runtime must not multiply them by retrying the call again.
 */
export async function* driveStream<Event>(options: DriveStreamOptions<Event>): AsyncGenerator<StreamPart> {
  const { errors, signal } = options
  const provider = errors.provider
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new AbortedError(`[spindle/${provider}] the request was aborted`)
    const attemptErrors: ErrorMappingContext = { ...errors, attempts: attempt + 1 }
    const controller = new AbortController()
    let stop: Stop
    // One watchdog timer per attempt instead of one per event: it re-arms itself for the time left,
    // so the per-chunk cost is two assignments. Time the consumer holds a part is not counted.
    let phase: 'first-chunk' | 'idle' = 'first-chunk'
    let waiting = true
    let waitingSince = Date.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const limit = () => (phase === 'first-chunk' ? options.timeouts.firstChunkMs : options.timeouts.idleMs)
    const watch = (ms: number) => {
      timer = setTimeout(() => {
        const elapsed = Date.now() - waitingSince
        if (waiting && elapsed >= limit()) {
          stop = { kind: phase }
          controller.abort()
        } else watch(waiting ? limit() - elapsed : limit())
      }, ms)
    }
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    let committed = false
    let held: StreamPart | undefined
    let iterator: AsyncIterator<Event> | undefined
    try {
      watch(options.timeouts.firstChunkMs)
      const mapper = options.createMapper(attemptErrors)
      const events = await options.open(controller.signal)
      iterator = events[Symbol.asyncIterator]()
      for (;;) {
        waiting = true
        if (phase === 'idle') waitingSince = Date.now()
        const next = await iterator.next()
        waiting = false
        if (phase === 'first-chunk') {
          phase = 'idle'
          clearTimeout(timer)
          watch(options.timeouts.idleMs)
        }
        if (next.done) break
        for (const part of mapper.map(next.value)) {
          // Metadata is held back until the attempt commits to output, so an attempt retried after
          // `response.created` leaves no trace: one call yields one `response-metadata` part.
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
          if (signal?.aborted) throw new AbortedError(`[spindle/${provider}] the request was aborted`)
        }
      }
      // The SDK ends its iterator quietly when the request is aborted; find out why it ended.
      if (signal?.aborted) throw new AbortedError(`[spindle/${provider}] the request was aborted`)
      if (stop) throw timeoutError(stop, options.timeouts, attemptErrors, committed)
      for (const part of mapper.end()) {
        if (held) yield held
        held = undefined
        yield part
      }
      return
    } catch (caught) {
      clearTimeout(timer)
      let error
      if (signal?.aborted) error = new AbortedError(`[spindle/${provider}] the request was aborted`, { cause: caught })
      else if (stop) error = timeoutError(stop, options.timeouts, attemptErrors, committed)
      // `waiting` in the idle phase: `iterator.next()` threw after at least one event arrived, so the
      // stream broke mid-way (StreamInterruptedError); before the first event the failure keeps its class.
      else error = mapOpenAIError(caught, attemptErrors, { midStream: waiting && phase === 'idle' })
      if (error.code === 'aborted') throw error
      if (committed) {
        yield { type: 'error', error }
        return
      }
      const delay = retryDelay(error, attempt, options.retry)
      if (delay === undefined) throw error
      await sleep(delay, signal, provider)
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      // Closes the connection when the consumer stopped early or an error ended the attempt.
      controller.abort()
    }
  }
}

function timeoutError(stop: NonNullable<Stop>, timeouts: StreamTimeouts, errors: ErrorMappingContext, committed: boolean): ProviderError {
  const { provider, attempts } = errors
  if (stop.kind === 'first-chunk') {
    return new ProviderError(
      `[spindle/${provider}] no response within ${timeouts.firstChunkMs} ms (first-chunk timeout); raise timeouts.firstChunkMs for slow models`,
      // The reason tells a run's error `provider_timeout` (it answered too late) from `provider_unreachable`.
      { isRetryable: true, provider, attempts, details: { reason: 'first_chunk_timeout' } },
    )
  }
  return new StreamInterruptedError(
    `[spindle/${provider}] the stream stalled for ${timeouts.idleMs} ms (idle timeout)${committed ? ' after partial output' : ''}; raise timeouts.idleMs if the model pauses longer`,
    { provider, attempts },
  )
}

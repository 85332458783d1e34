// Runs an AI SDK model's `doStream` with Spindle's guarantees: bounded retries before any output, a first-chunk and
// an idle timeout, abort at any point (AbortedError), errors mapped to core errors, and a stream that ends without
// its finish reported as interrupted — never as a complete answer. (The design of @spindle/openai's driver.)
// A hand-written iterator, not an async generator: per chunk it costs one `read()` and one `then`, where a generator
// adds its own promise, a resumption and an implicit await of each yielded value (the `ai-sdk` suite of `pnpm bench` measures it).
import { AbortedError, ProviderError, StreamInterruptedError, type StreamPart } from '@spindle/core'
import { untilAborted } from '@spindle/core/plugin-kit'
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
type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<AiSdkStreamPart>['read']>>

const done: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

/**
 * The mapped parts. An error before any output is thrown (after the allowed retries); after output it is yielded as
 * an `error` part and the stream ends. An abort always throws AbortedError.
 */
export function driveStream(options: DriveStreamOptions): AsyncIterableIterator<StreamPart> {
  return new DrivenStream(options)
}

class DrivenStream implements AsyncIterableIterator<StreamPart> {
  readonly #options: DriveStreamOptions
  #attempt = -1
  #errors!: ErrorMappingContext
  #controller: AbortController | undefined
  #reader: ReadableStreamDefaultReader<AiSdkStreamPart> | undefined
  #mapper!: AiSdkStreamMapper
  #stop: Stop
  // One watchdog timer per attempt, re-armed for the time left, so the per-part cost is two assignments.
  #phase: 'first-chunk' | 'idle' = 'first-chunk'
  #waiting = true
  #waitingSince = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #committed = false
  #held: StreamPart | undefined
  #finished = false
  /** Parts mapped from the last chunk, handed out from `#next`. */
  #queue: StreamPart[] = []
  #next = 0
  readonly #scratch: StreamPart[] = []
  readonly #onAbort = () => this.#controller?.abort()

  constructor(options: DriveStreamOptions) {
    this.#options = options
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<StreamPart>> {
    if (this.#next < this.#queue.length) {
      if (this.#options.signal?.aborted) return this.#fail(this.#aborted())
      return Promise.resolve({ done: false, value: this.#queue[this.#next++]! })
    }
    if (this.#finished) return Promise.resolve(done)
    if (this.#options.signal?.aborted) return this.#fail(this.#aborted())
    if (this.#reader === undefined) return this.#open().then(this.#read, this.#onFailure)
    return this.#read()
  }

  async return(): Promise<IteratorResult<StreamPart>> {
    this.#end()
    return done
  }

  readonly #read = (): Promise<IteratorResult<StreamPart>> => {
    this.#waiting = true
    if (this.#phase === 'idle') this.#waitingSince = Date.now()
    return this.#reader!.read().then(this.#onChunk, this.#onFailure)
  }

  readonly #onChunk = (chunk: ReadResult): Promise<IteratorResult<StreamPart>> | IteratorResult<StreamPart> => {
    // Not `.then(onChunk).catch(onFailure)`: a promise `#read` returns here has handled its failure already.
    try {
      return this.#handle(chunk)
    } catch (error) {
      return this.#onFailure(error)
    }
  }

  #handle(chunk: ReadResult): Promise<IteratorResult<StreamPart>> | IteratorResult<StreamPart> {
    this.#waiting = false
    const signal = this.#options.signal
    if (chunk.done) {
      if (signal?.aborted) throw this.#aborted()
      if (this.#stop) throw timeoutError(this.#stop, this.#options.timeouts, this.#errors)
      this.#mapper.end()
      this.#options.onMetadata?.(this.#mapper.metadata)
      this.#end()
      return done
    }
    const queue = this.#committed ? this.#queue : this.#scratch
    queue.length = 0
    this.#next = 0
    this.#mapper.map(chunk.value, queue)
    if (queue.length === 0) return this.#read()
    if (this.#phase === 'first-chunk') {
      this.#phase = 'idle'
      clearTimeout(this.#timer)
      this.#watch(this.#options.timeouts.idleMs)
    }
    if (!this.#committed) this.#commit(queue)
    if (this.#queue.length === 0) return this.#read()
    return { done: false, value: this.#queue[this.#next++]! }
  }

  /** Metadata is held back until the attempt commits to output: a retried attempt leaves no trace. */
  #commit(parts: StreamPart[]): void {
    const queue = this.#queue
    queue.length = 0
    for (const part of parts) {
      if (!this.#committed) {
        if (part.type === 'response-metadata') {
          this.#held = part
          continue
        }
        this.#committed = true
        if (this.#held) queue.push(this.#held)
        this.#held = undefined
      }
      queue.push(part)
    }
  }

  readonly #onFailure = (caught: unknown): Promise<IteratorResult<StreamPart>> | IteratorResult<StreamPart> => {
    const { errors, signal, retry } = this.#options
    clearTimeout(this.#timer)
    let error
    if (signal?.aborted) error = new AbortedError(`[spindle/ai-sdk] ${errors.provider}: the request was aborted`, { cause: caught })
    else if (this.#stop) error = timeoutError(this.#stop, this.#options.timeouts, this.#errors)
    else error = mapAiSdkError(caught, this.#errors, { midStream: this.#phase === 'idle' })
    this.#closeAttempt()
    if (error.code === 'aborted') return this.#fail(error)
    if (this.#committed) {
      this.#end()
      return { done: false, value: { type: 'error', error } }
    }
    const delay = retryDelay(error, this.#attempt, retry)
    if (delay === undefined) return this.#fail(error)
    return sleep(delay, signal, errors.provider).then(
      () => this.next(),
      (slept: unknown) => this.#fail(slept),
    )
  }

  /** Starts the next attempt: calls `doStream` under a fresh controller and the first-chunk watchdog. */
  async #open(): Promise<void> {
    const { errors, signal } = this.#options
    this.#attempt++
    this.#errors = { ...errors, attempts: this.#attempt + 1 }
    const controller = new AbortController()
    this.#controller = controller
    this.#stop = undefined
    this.#phase = 'first-chunk'
    this.#waiting = true
    this.#waitingSince = Date.now()
    this.#held = undefined
    this.#mapper = new AiSdkStreamMapper(this.#errors)
    signal?.addEventListener('abort', this.#onAbort, { once: true })
    this.#watch(this.#options.timeouts.firstChunkMs)
    // Some models ignore their abort signal while waiting; the race makes a timeout or an abort end the wait at once.
    const result = await untilAborted(Promise.resolve(this.#options.open(controller.signal)), controller.signal)
    const reader = result.stream.getReader()
    this.#reader = reader
    // A timeout or an abort cancels the reader, which ends a pending read even when the model ignores its signal.
    controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true })
  }

  #watch(ms: number): void {
    this.#timer = setTimeout(() => {
      const limit = this.#phase === 'first-chunk' ? this.#options.timeouts.firstChunkMs : this.#options.timeouts.idleMs
      const elapsed = Date.now() - this.#waitingSince
      if (this.#waiting && elapsed >= limit) {
        this.#stop = this.#phase
        this.#controller?.abort()
      } else this.#watch(this.#waiting ? limit - elapsed : limit)
    }, ms)
  }

  #aborted(): AbortedError {
    return new AbortedError(`[spindle/ai-sdk] ${this.#options.errors.provider}: the request was aborted`)
  }

  #fail(error: unknown): Promise<never> {
    this.#end()
    return Promise.reject(error)
  }

  /** Ends the attempt: the watchdog, the abort listener, and the connection (when the consumer stopped early or an error ended it). */
  #closeAttempt(): void {
    clearTimeout(this.#timer)
    this.#options.signal?.removeEventListener('abort', this.#onAbort)
    this.#controller?.abort()
    this.#reader?.cancel().catch(() => {})
    this.#reader = undefined
    this.#controller = undefined
  }

  #end(): void {
    this.#finished = true
    this.#queue.length = 0
    this.#next = 0
    this.#closeAttempt()
  }
}

function timeoutError(stop: NonNullable<Stop>, timeouts: StreamTimeouts, errors: ErrorMappingContext): ProviderError {
  const { provider, attempts } = errors
  if (stop === 'first-chunk') {
    return new ProviderError(
      `[spindle/ai-sdk] ${provider}: no response within ${timeouts.firstChunkMs} ms (first-chunk timeout); raise timeouts.firstChunkMs for slow models`,
      {
        isRetryable: true,
        provider,
        attempts,
      },
    )
  }
  return new StreamInterruptedError(
    `[spindle/ai-sdk] ${provider}: the stream stalled for ${timeouts.idleMs} ms (idle timeout); raise timeouts.idleMs if the model pauses longer`,
    {
      provider,
      attempts,
    },
  )
}

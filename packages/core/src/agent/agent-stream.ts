// AgentStream: what `agent.stream()` returns — the run's events as an async iterable, plus `text` and `result`.
// The run proceeds whether or not anyone reads (events are buffered for the reader), so its cleanups run
// when it ends; a reader that stops early (break, return(), throw, abort) cancels it and waits for the cleanups.
import { AbortedError, ConfigurationError } from '../errors/errors.js'
import type { RunOutput } from '../runtime/run-request.js'
import type { AgentEvent } from '../spec/events.js'

/**
 * @example
 * const stream = agent.stream({ prompt: 'Summarize the sheet', runtime })
 * for await (const event of stream) if (event.type === 'text.delta') process.stdout.write(event.delta)
 * const { finishReason } = await stream.result
 */
export interface AgentStream extends AsyncIterable<AgentEvent> {
  /**
   * The run's output (finish reason `cancelled` when stopped early); settles after the request's runtime cleanups ran.
   * Rejects only when the run could not start: admission refused it, or it was cancelled before it started (`AbortedError`).
   */
  readonly result: Promise<RunOutput>
  /** The final answer (`result.text`). */
  readonly text: Promise<string>
  /** Only the text deltas. Like iterating the stream itself, it can be read once. */
  readonly textStream: AsyncIterable<string>
  /** Cancels the run (finish reason `cancelled`) and resolves once it ended and its cleanups ran. */
  cancel(reason?: unknown): Promise<void>
}

/** The kernel stream an AgentStream wraps (`AgentRuntime.stream()`'s result). */
export interface SourceRunStream extends AsyncIterable<AgentEvent> {
  readonly result: Promise<RunOutput>
}

export class AgentEventStream implements AgentStream {
  readonly result: Promise<RunOutput>
  readonly text: Promise<string>
  readonly #controller: AbortController
  readonly #buffer: AgentEvent[] = []
  readonly #finished: Promise<void>
  #ended = false
  #error: unknown
  #failed = false
  #wake: (() => void) | undefined
  #read = false
  /** Set when the reader stopped early: later events are dropped instead of buffered. */
  #discarding = false

  /** `start` starts the run and receives the signal that `cancel()` and an early-stopping reader abort. */
  constructor(start: (cancel: AbortSignal) => SourceRunStream) {
    this.#controller = new AbortController()
    const source = start(this.#controller.signal)
    this.result = source.result
    this.result.catch(() => {})
    this.text = this.result.then((output) => output.text)
    this.text.catch(() => {})
    const pump = this.#pump(source)
    this.#finished = Promise.allSettled([pump, this.result]).then(() => undefined)
  }

  async #pump(source: AsyncIterable<AgentEvent>): Promise<void> {
    try {
      for await (const event of source) {
        if (!this.#discarding) this.#buffer.push(event)
        this.#notify()
      }
    } catch (error) {
      this.#failed = true
      this.#error = error
    } finally {
      this.#ended = true
      this.#notify()
    }
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  async cancel(reason?: unknown): Promise<void> {
    if (!this.#ended) {
      this.#controller.abort(reason instanceof Error ? reason : new AbortedError('[spindle/core] the agent stream was cancelled'))
    }
    await this.#finished
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#read) {
      throw new ConfigurationError('[spindle/core] an agent stream can be read once; use `result` / `text` for the outcome, or call agent.stream() again')
    }
    this.#read = true
    let done = false
    const stop = async (): Promise<IteratorResult<AgentEvent>> => {
      if (!done) {
        done = true
        this.#discarding = true
        this.#buffer.length = 0
        await this.cancel(new AbortedError('[spindle/core] the stream consumer stopped reading; the run was cancelled'))
      }
      return { value: undefined, done: true }
    }
    return {
      next: async (): Promise<IteratorResult<AgentEvent>> => {
        for (;;) {
          if (done) return { value: undefined, done: true }
          const event = this.#buffer.shift()
          if (event) return { value: event, done: false }
          if (this.#ended) {
            done = true
            // The run ended and its cleanups ran before the iteration finishes.
            await this.#finished
            if (this.#failed) throw this.#error
            return { value: undefined, done: true }
          }
          await new Promise<void>((resolve) => {
            this.#wake = resolve
          })
        }
      },
      return: stop,
      throw: async (error?: unknown) => {
        await stop()
        throw error
      },
    }
  }

  get textStream(): AsyncIterable<string> {
    return {
      [Symbol.asyncIterator]: () => {
        const events = this[Symbol.asyncIterator]()
        return {
          next: async (): Promise<IteratorResult<string>> => {
            for (;;) {
              const next = await events.next()
              if (next.done) return { value: undefined, done: true }
              if (next.value.type === 'text.delta') return { value: next.value.delta, done: false }
            }
          },
          return: async (): Promise<IteratorResult<string>> => {
            await events.return?.()
            return { value: undefined, done: true }
          },
        }
      },
    }
  }
}

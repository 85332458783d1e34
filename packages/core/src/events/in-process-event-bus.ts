// The default EventBus: a bounded broadcast; a slow subscriber loses its oldest events and gets `lagged`.
import type { EventBus, SubscribeOptions } from '../spec/event-bus.js'
import type { AgentEvent, LaggedEvent } from '../spec/events.js'

const defaultCapacity = 256

class Subscriber {
  readonly buffer: AgentEvent[] = []
  head = 0
  missed = 0
  closed = false
  /** Thrown by this subscriber's own filter: ends its iteration, never reaches the publisher. */
  failure: { error: unknown } | undefined
  wake: (() => void) | undefined

  constructor(
    readonly capacity: number,
    readonly filter: ((event: AgentEvent) => boolean) | undefined,
  ) {}

  push(event: AgentEvent): void {
    if (this.closed || !this.matches(event)) return
    if (this.buffer.length - this.head >= this.capacity) {
      this.head++
      this.missed++
    }
    this.buffer.push(event)
    if (this.head > 1024 && this.head * 2 > this.buffer.length) {
      this.buffer.splice(0, this.head)
      this.head = 0
    }
    this.notify()
  }

  matches(event: AgentEvent): boolean {
    if (!this.filter) return true
    try {
      return this.filter(event)
    } catch (error) {
      this.failure = { error }
      this.closed = true
      this.notify()
      return false
    }
  }

  notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}

/** The default `EventBus`: broadcasts events to this process's subscribers, each with a bounded buffer (a slow one gets `lagged`). */
export class InProcessEventBus implements EventBus {
  readonly specificationVersion = 'v1' as const
  readonly #subscribers = new Set<Subscriber>()

  get subscriberCount(): number {
    return this.#subscribers.size
  }

  publish(event: AgentEvent): void {
    if (this.#subscribers.size === 0) return
    for (const subscriber of this.#subscribers) subscriber.push(event)
  }

  subscribe(options: SubscribeOptions = {}): AsyncIterable<AgentEvent | LaggedEvent> {
    const subscribers = this.#subscribers
    return {
      [Symbol.asyncIterator]() {
        const subscriber = new Subscriber(options.capacity ?? defaultCapacity, options.filter)
        subscribers.add(subscriber)
        const close = () => {
          subscriber.closed = true
          subscribers.delete(subscriber)
          subscriber.notify()
        }
        if (options.signal?.aborted) close()
        options.signal?.addEventListener('abort', close, { once: true })
        return {
          async next(): Promise<IteratorResult<AgentEvent | LaggedEvent>> {
            for (;;) {
              if (subscriber.missed > 0) {
                const lagged: LaggedEvent = { type: 'lagged', missed: subscriber.missed, timestamp: Date.now() }
                subscriber.missed = 0
                return { value: lagged, done: false }
              }
              if (subscriber.head < subscriber.buffer.length) {
                const value = subscriber.buffer[subscriber.head]!
                subscriber.buffer[subscriber.head++] = undefined as never
                return { value, done: false }
              }
              if (subscriber.closed) {
                options.signal?.removeEventListener('abort', close)
                close()
                if (subscriber.failure) {
                  const { error } = subscriber.failure
                  subscriber.failure = undefined
                  throw error
                }
                return { value: undefined, done: true }
              }
              await new Promise<void>((resolve) => {
                subscriber.wake = resolve
              })
            }
          },
          async return(): Promise<IteratorResult<AgentEvent | LaggedEvent>> {
            options.signal?.removeEventListener('abort', close)
            close()
            return { value: undefined, done: true }
          },
        }
      },
    }
  }

  close(): void {
    for (const subscriber of this.#subscribers) {
      subscriber.closed = true
      subscriber.notify()
    }
    this.#subscribers.clear()
  }
}

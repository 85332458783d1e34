// A lossless single-consumer channel with back-pressure: the producer awaits `whenWritable()` past the high-water mark.
export class EventChannel<T> {
  readonly #items: T[] = []
  #head = 0
  #closed = false
  #error: unknown
  #wakeConsumer: (() => void) | undefined
  #wakeProducer: (() => void) | undefined
  #writable: Promise<void> | undefined
  #onAbandon: (() => void) | undefined

  constructor(readonly highWaterMark = 1024) {}

  get size(): number {
    return this.#items.length - this.#head
  }

  get closed(): boolean {
    return this.#closed
  }

  push(item: T): void {
    if (this.#closed) return
    this.#items.push(item)
    const wake = this.#wakeConsumer
    if (wake) {
      this.#wakeConsumer = undefined
      wake()
    }
  }

  /** Resolves at once below the high-water mark, else when the consumer has drained half of it. */
  whenWritable(): Promise<void> | undefined {
    if (this.size < this.highWaterMark || this.#closed) return undefined
    // Every caller waiting at the same time shares one promise, so none of them is left waiting forever.
    this.#writable ??= new Promise<void>((resolve) => {
      this.#wakeProducer = resolve
    })
    return this.#writable
  }

  close(error?: unknown): void {
    if (this.#closed) return
    this.#closed = true
    this.#error = error
    this.#wakeConsumer?.()
    this.#wakeConsumer = undefined
    this.#releaseProducer()
  }

  /** Called once when the consumer stops early (break / return / throw). */
  onAbandon(callback: () => void): void {
    this.#onAbandon = callback
  }

  #releaseProducer(): void {
    const wake = this.#wakeProducer
    this.#wakeProducer = undefined
    this.#writable = undefined
    wake?.()
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (this.#head < this.#items.length) {
            const value = this.#items[this.#head]!
            this.#items[this.#head++] = undefined as never
            if (this.#head > 4096 && this.#head * 2 > this.#items.length) {
              this.#items.splice(0, this.#head)
              this.#head = 0
            }
            if (this.#wakeProducer && this.size <= this.highWaterMark / 2) this.#releaseProducer()
            return { value, done: false }
          }
          if (this.#closed) {
            if (this.#error !== undefined) {
              const error = this.#error
              this.#error = undefined
              throw error
            }
            return { value: undefined, done: true }
          }
          await new Promise<void>((resolve) => {
            this.#wakeConsumer = resolve
          })
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        const wasOpen = !this.#closed
        this.#closed = true
        this.#items.length = 0
        this.#head = 0
        this.#releaseProducer()
        if (wasOpen) this.#onAbandon?.()
        return { value: undefined, done: true }
      },
    }
  }
}

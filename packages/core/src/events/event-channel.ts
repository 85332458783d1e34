// A lossless single-consumer channel with back-pressure: the producer awaits `whenWritable()` past the high-water mark.
// The channel is its own async iterator. A consumer waiting for the next item gets it handed over by `push`
// directly (one promise per item, no queueing and no second wake-up): for a streamed answer every delta goes
// this way, so it is the cost of `stream()` per event.
/** A single-reader async queue with back-pressure: what `stream()` delivers a run's events through. */
export class EventChannel<T> implements AsyncIterableIterator<T> {
  readonly #items: T[] = []
  #head = 0
  #closed = false
  #error: unknown
  /** The waiting consumer's read, and how to settle it (set by `#capture`). */
  #waiting: Promise<IteratorResult<T>> | undefined
  #resolve: ((result: IteratorResult<T>) => void) | undefined
  #reject: ((error: unknown) => void) | undefined
  readonly #capture = this.#captureSettlers.bind(this)
  readonly #nextRead = (): Promise<IteratorResult<T>> => this.next()
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
    const resolve = this.#resolve
    if (resolve === undefined) {
      this.#items.push(item)
      return
    }
    // A consumer only waits on an empty buffer: the item goes straight to it.
    this.#settled()
    resolve({ value: item, done: false })
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
    this.#releaseProducer()
    const resolve = this.#resolve
    const reject = this.#reject
    if (resolve === undefined || reject === undefined) return
    this.#settled()
    if (error === undefined) resolve({ value: undefined, done: true })
    else {
      this.#error = undefined
      reject(error)
    }
  }

  /** Called once when the consumer stops early (break / return / throw). */
  onAbandon(callback: () => void): void {
    this.#onAbandon = callback
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<T>> {
    // A second read while one waits (the protocol allows it) is served after the first, in order.
    if (this.#waiting !== undefined) return this.#waiting.then(this.#nextRead, this.#nextRead)
    if (this.#head < this.#items.length) return Promise.resolve(this.#take())
    if (this.#closed) {
      if (this.#error === undefined) return Promise.resolve({ value: undefined, done: true })
      const error = this.#error
      this.#error = undefined
      return Promise.reject(error)
    }
    this.#waiting = new Promise(this.#capture)
    return this.#waiting
  }

  return(): Promise<IteratorResult<T>> {
    const wasOpen = !this.#closed
    this.#closed = true
    this.#items.length = 0
    this.#head = 0
    this.#releaseProducer()
    const resolve = this.#resolve
    this.#settled()
    resolve?.({ value: undefined, done: true })
    if (wasOpen) this.#onAbandon?.()
    return Promise.resolve({ value: undefined, done: true })
  }

  #take(): IteratorResult<T> {
    const value = this.#items[this.#head]!
    this.#items[this.#head++] = undefined as never
    if (this.#head > 4096 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head)
      this.#head = 0
    }
    if (this.#wakeProducer && this.size <= this.highWaterMark / 2) this.#releaseProducer()
    return { value, done: false }
  }

  #captureSettlers(resolve: (result: IteratorResult<T>) => void, reject: (error: unknown) => void): void {
    this.#resolve = resolve
    this.#reject = reject
  }

  #settled(): void {
    this.#waiting = undefined
    this.#resolve = undefined
    this.#reject = undefined
  }

  #releaseProducer(): void {
    const wake = this.#wakeProducer
    this.#wakeProducer = undefined
    this.#writable = undefined
    wake?.()
  }
}

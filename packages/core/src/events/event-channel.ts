// A lossless single-consumer channel with back-pressure: the producer awaits `whenWritable()` past the high-water mark.
// The channel is its own async iterator. A consumer waiting for the next item gets it handed over by `push`
// directly (one promise per item, no queueing and no second wake-up): for a streamed answer every delta goes
// this way, so it is the cost of `stream()` per event.
/**
 * A single-reader async queue with back-pressure: what `stream()` delivers a run's events through.
 *
 * `new EventChannel()` returns one literal with every field and these methods as own properties, its async iterator
 * added after; a run's channel is built by `eventChannel()` without it (the run's stream hands out the channel as its
 * own iterator): a class instance's hidden class, and a literal's with a computed key, dies at a full GC when no run
 * is alive, with the code compiled against it (see util/fast-path.ts).
 */
export class EventChannel<T> implements AsyncIterableIterator<T> {
  declare readonly highWaterMark: number
  /** How many items wait for the consumer (kept by the channel: read it, never set it). */
  declare size: number
  /** Whether the channel was closed, by its producer or its consumer's `return()` (read it, never set it). */
  declare closed: boolean
  declare readonly items: T[]
  declare head: number
  declare error: unknown
  /** The waiting consumer's read, and how to settle it (set by `captureSettlers`). */
  declare waiting: Promise<IteratorResult<T>> | undefined
  declare resolve: ((result: IteratorResult<T>) => void) | undefined
  declare reject: ((error: unknown) => void) | undefined
  declare readonly capture: (resolve: (result: IteratorResult<T>) => void, reject: (error: unknown) => void) => void
  declare readonly nextRead: () => Promise<IteratorResult<T>>
  declare wakeProducer: (() => void) | undefined
  declare writable: Promise<void> | undefined
  declare abandoned: (() => void) | undefined

  constructor(highWaterMark = 1024) {
    const channel = eventChannel<T>(highWaterMark) as EventChannel<T>
    channel[Symbol.asyncIterator] = returnThis
    return channel
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  push(item: T): void {
    if (this.closed) return
    const resolve = this.resolve
    if (resolve === undefined) {
      this.items.push(item)
      this.size++
      return
    }
    // A consumer only waits on an empty buffer: the item goes straight to it.
    this.settled()
    resolve({ value: item, done: false })
  }

  /** Resolves at once below the high-water mark, else when the consumer has drained half of it. */
  whenWritable(): Promise<void> | undefined {
    if (this.size < this.highWaterMark || this.closed) return undefined
    // Every caller waiting at the same time shares one promise, so none of them is left waiting forever.
    this.writable ??= new Promise<void>((resolve) => {
      this.wakeProducer = resolve
    })
    return this.writable
  }

  close(error?: unknown): void {
    if (this.closed) return
    this.closed = true
    this.error = error
    this.releaseProducer()
    const resolve = this.resolve
    const reject = this.reject
    if (resolve === undefined || reject === undefined) return
    this.settled()
    if (error === undefined) resolve({ value: undefined, done: true })
    else {
      this.error = undefined
      reject(error)
    }
  }

  /** Called once when the consumer stops early (break / return / throw). */
  onAbandon(callback: () => void): void {
    this.abandoned = callback
  }

  next(): Promise<IteratorResult<T>> {
    // A second read while one waits (the protocol allows it) is served after the first, in order.
    if (this.waiting !== undefined) return this.waiting.then(this.nextRead, this.nextRead)
    if (this.head < this.items.length) return Promise.resolve(this.take())
    if (this.closed) {
      if (this.error === undefined) return Promise.resolve({ value: undefined, done: true })
      const error = this.error
      this.error = undefined
      return Promise.reject(error)
    }
    this.waiting = new Promise(this.capture)
    return this.waiting
  }

  return(): Promise<IteratorResult<T>> {
    const wasOpen = !this.closed
    this.closed = true
    this.items.length = 0
    this.head = 0
    this.size = 0
    this.releaseProducer()
    const resolve = this.resolve
    this.settled()
    resolve?.({ value: undefined, done: true })
    if (wasOpen) this.abandoned?.()
    return Promise.resolve({ value: undefined, done: true })
  }

  take(): IteratorResult<T> {
    const value = this.items[this.head]!
    this.items[this.head++] = undefined as never
    this.size--
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head)
      this.head = 0
    }
    if (this.wakeProducer && this.size <= this.highWaterMark / 2) this.releaseProducer()
    return { value, done: false }
  }

  captureSettlers(resolve: (result: IteratorResult<T>) => void, reject: (error: unknown) => void): void {
    this.resolve = resolve
    this.reject = reject
  }

  settled(): void {
    this.waiting = undefined
    this.resolve = undefined
    this.reject = undefined
  }

  releaseProducer(): void {
    const wake = this.wakeProducer
    this.wakeProducer = undefined
    this.writable = undefined
    wake?.()
  }
}

function returnThis<T>(this: T): T {
  return this
}

const methods = EventChannel.prototype

/** A run's channel: an `EventChannel` without its own async iterator (see the class). */
export type RunEventChannel<T> = Omit<EventChannel<T>, typeof Symbol.asyncIterator>

/** An empty channel whose producer waits past `highWaterMark` items (see `RunEventChannel`). */
export function eventChannel<T>(highWaterMark = 1024): RunEventChannel<T> {
  const channel: RunEventChannel<T> = {
    highWaterMark,
    size: 0,
    closed: false,
    items: [],
    head: 0,
    error: undefined,
    waiting: undefined,
    resolve: undefined,
    reject: undefined,
    capture: undefined as never,
    nextRead: undefined as never,
    wakeProducer: undefined,
    writable: undefined,
    abandoned: undefined,
    push: methods.push,
    whenWritable: methods.whenWritable,
    close: methods.close,
    onAbandon: methods.onAbandon,
    next: methods.next,
    return: methods.return,
    take: methods.take,
    captureSettlers: methods.captureSettlers,
    settled: methods.settled,
    releaseProducer: methods.releaseProducer,
  }
  const callbacks = channel as { capture: RunEventChannel<T>['capture']; nextRead: RunEventChannel<T>['nextRead'] }
  callbacks.capture = channel.captureSettlers.bind(channel)
  callbacks.nextRead = () => channel.next()
  return channel
}

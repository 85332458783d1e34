import { describe, expect, it } from 'vitest'
import { EventChannel } from './event-channel.js'

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

async function drain<T>(channel: EventChannel<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of channel) items.push(item)
  return items
}

describe('EventChannel', () => {
  it('is lossless and ordered, and ends after close', async () => {
    const channel = new EventChannel<number>()
    for (let i = 0; i < 100; i++) channel.push(i)
    expect(channel.size).toBe(100)
    channel.close()
    expect(channel.closed).toBe(true)
    expect(await drain(channel)).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })

  it('keeps order across its internal compaction with tens of thousands of items', async () => {
    const channel = new EventChannel<number>(100_000)
    const count = 20_000
    const consumer = drain(channel)
    for (let i = 0; i < count; i++) {
      channel.push(i)
      if (i % 1_000 === 0) await tick()
    }
    channel.close()
    const items = await consumer
    expect(items).toHaveLength(count)
    expect(items.every((value, index) => value === index)).toBe(true)
  })

  it('keeps order when a large backlog is read in one go', async () => {
    const channel = new EventChannel<number>(100_000)
    for (let i = 0; i < 12_000; i++) channel.push(i)
    channel.close()
    const items = await drain(channel)
    expect(items.every((value, index) => value === index)).toBe(true)
    expect(items).toHaveLength(12_000)
  })

  it('wakes a waiting consumer on push and on close', async () => {
    const channel = new EventChannel<string>()
    const iterator = channel[Symbol.asyncIterator]()
    const first = iterator.next()
    channel.push('a')
    await expect(first).resolves.toEqual({ done: false, value: 'a' })
    const second = iterator.next()
    channel.close()
    await expect(second).resolves.toEqual({ done: true, value: undefined })
  })

  it('ignores pushes after close', async () => {
    const channel = new EventChannel<number>()
    channel.push(1)
    channel.close()
    channel.push(2)
    expect(await drain(channel)).toEqual([1])
  })

  it('whenWritable() is undefined below the high-water mark', () => {
    const channel = new EventChannel<number>(4)
    for (let i = 0; i < 3; i++) channel.push(i)
    expect(channel.whenWritable()).toBeUndefined()
  })

  it('past the high-water mark whenWritable() returns a promise that resolves once the consumer drained to half', async () => {
    const channel = new EventChannel<number>(4)
    for (let i = 0; i < 5; i++) channel.push(i)
    const writable = channel.whenWritable()
    expect(writable).toBeInstanceOf(Promise)
    let resolved = false
    void writable!.then(() => (resolved = true))
    const iterator = channel[Symbol.asyncIterator]()
    await iterator.next() // size 4
    await iterator.next() // size 3
    await tick()
    expect(resolved).toBe(false)
    await iterator.next() // size 2 = half of 4
    await tick()
    expect(resolved).toBe(true)
    expect(channel.size).toBe(2)
  })

  it('several producers waiting in whenWritable() at once are all released', async () => {
    const channel = new EventChannel<number>(2)
    channel.push(1)
    channel.push(2)
    const first = channel.whenWritable()!
    const second = channel.whenWritable()!
    let released = 0
    void first.then(() => released++)
    void second.then(() => released++)
    await channel[Symbol.asyncIterator]().next()
    await tick()
    expect(released).toBe(2)
    // Once released, the next wait past the mark is a fresh promise.
    channel.push(3)
    channel.push(4)
    const third = channel.whenWritable()
    expect(third).toBeInstanceOf(Promise)
    expect(third).not.toBe(first)
  })

  it('close() releases a producer waiting in whenWritable(), and a closed channel is always writable', async () => {
    const channel = new EventChannel<number>(2)
    channel.push(1)
    channel.push(2)
    const writable = channel.whenWritable()!
    channel.close()
    await expect(writable).resolves.toBeUndefined()
    expect(channel.whenWritable()).toBeUndefined()
  })

  it('a producer that awaits whenWritable() never buffers much more than the high-water mark', async () => {
    const channel = new EventChannel<number>(10)
    let maxSize = 0
    const producer = (async () => {
      for (let i = 0; i < 200; i++) {
        channel.push(i)
        maxSize = Math.max(maxSize, channel.size)
        await channel.whenWritable()
      }
      channel.close()
    })()
    const items: number[] = []
    for await (const item of channel) {
      items.push(item)
      if (item % 7 === 0) await tick()
    }
    await producer
    expect(items).toEqual(Array.from({ length: 200 }, (_, i) => i))
    expect(maxSize).toBeLessThanOrEqual(10)
  })

  it('close(error) delivers the buffered items first, then rethrows the error to the consumer, once', async () => {
    const channel = new EventChannel<number>()
    const failure = new Error('store down')
    channel.push(1)
    channel.push(2)
    channel.close(failure)
    const iterator = channel[Symbol.asyncIterator]()
    await expect(iterator.next()).resolves.toEqual({ done: false, value: 1 })
    await expect(iterator.next()).resolves.toEqual({ done: false, value: 2 })
    await expect(iterator.next()).rejects.toBe(failure)
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
  })

  it('close(error) fails a for-await consumer after it saw every item', async () => {
    const channel = new EventChannel<number>()
    const seen: number[] = []
    const consumer = (async () => {
      for await (const item of channel) seen.push(item)
    })()
    channel.push(1)
    await tick()
    channel.push(2)
    channel.close(new Error('boom'))
    await expect(consumer).rejects.toThrow('boom')
    expect(seen).toEqual([1, 2])
  })

  it('close() twice keeps the first outcome', async () => {
    const channel = new EventChannel<number>()
    channel.close()
    channel.close(new Error('late'))
    expect(await drain(channel)).toEqual([])
  })

  it('onAbandon fires once when the consumer breaks out of for-await, and the channel closes', async () => {
    const channel = new EventChannel<number>()
    let abandoned = 0
    channel.onAbandon(() => abandoned++)
    channel.push(1)
    channel.push(2)
    channel.push(3)
    for await (const item of channel) if (item === 1) break
    expect(abandoned).toBe(1)
    expect(channel.closed).toBe(true)
    expect(channel.size).toBe(0)
    channel.push(4)
    expect(channel.size).toBe(0)
  })

  it('onAbandon fires when the consumer throws inside for-await', async () => {
    const channel = new EventChannel<number>()
    let abandoned = false
    channel.onAbandon(() => (abandoned = true))
    channel.push(1)
    await expect(
      (async () => {
        for await (const item of channel) throw new Error(`stop at ${item}`)
      })(),
    ).rejects.toThrow('stop at 1')
    expect(abandoned).toBe(true)
  })

  it('onAbandon does not fire after a normal close, even when the consumer then breaks early', async () => {
    const channel = new EventChannel<number>()
    let abandoned = false
    channel.onAbandon(() => (abandoned = true))
    channel.push(1)
    channel.push(2)
    channel.close()
    for await (const item of channel) if (item === 1) break
    expect(abandoned).toBe(false)

    const complete = new EventChannel<number>()
    complete.onAbandon(() => (abandoned = true))
    complete.push(1)
    complete.close()
    expect(await drain(complete)).toEqual([1])
    expect(abandoned).toBe(false)
  })

  it('an abandoning consumer releases a producer blocked in whenWritable()', async () => {
    const channel = new EventChannel<number>(2)
    channel.push(1)
    channel.push(2)
    const writable = channel.whenWritable()!
    await channel[Symbol.asyncIterator]().return!()
    await expect(writable).resolves.toBeUndefined()
  })

  it('reads requested before the items arrive are served in order, each item once', async () => {
    const channel = new EventChannel<number>()
    const iterator = channel[Symbol.asyncIterator]()
    const reads = [iterator.next(), iterator.next(), iterator.next()]
    channel.push(1)
    channel.push(2)
    channel.close()
    await expect(Promise.all(reads)).resolves.toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
      { done: true, value: undefined },
    ])
  })

  it('a read waiting on an empty channel ends when the consumer returns, and the producer is told', async () => {
    const channel = new EventChannel<number>()
    let abandoned = 0
    channel.onAbandon(() => abandoned++)
    const iterator = channel[Symbol.asyncIterator]()
    const waiting = iterator.next()
    await expect(iterator.return!()).resolves.toEqual({ done: true, value: undefined })
    await expect(waiting).resolves.toEqual({ done: true, value: undefined })
    expect(abandoned).toBe(1)
  })

  it('close(error) rejects a waiting read once; the reads after it end', async () => {
    const channel = new EventChannel<number>()
    const iterator = channel[Symbol.asyncIterator]()
    const waiting = iterator.next()
    const queued = iterator.next()
    channel.close(new Error('gone'))
    await expect(waiting).rejects.toThrow('gone')
    await expect(queued).resolves.toEqual({ done: true, value: undefined })
  })
})

import { describe, expect, it } from 'vitest'
import type { AgentEvent, LaggedEvent } from '../spec/events.js'
import { InProcessEventBus } from './in-process-event-bus.js'

function delta(seq: number, runId = 'run-1'): AgentEvent {
  return { type: 'text.delta', step: 1, delta: `d${seq}`, runId, sessionId: 's1', seq, timestamp: 0 }
}

const seqs = (items: Array<AgentEvent | LaggedEvent>) => items.map((item) => (item.type === 'lagged' ? `lagged:${item.missed}` : item.seq))

async function take(iterator: AsyncIterator<AgentEvent | LaggedEvent>, count: number): Promise<Array<AgentEvent | LaggedEvent>> {
  const items: Array<AgentEvent | LaggedEvent> = []
  for (let i = 0; i < count; i++) {
    const result = await iterator.next()
    if (result.done) break
    items.push(result.value)
  }
  return items
}

describe('InProcessEventBus', () => {
  it('delivers published events in order to every subscriber', async () => {
    const bus = new InProcessEventBus()
    expect(bus.specificationVersion).toBe('v1')
    const a = bus.subscribe()[Symbol.asyncIterator]()
    const b = bus.subscribe()[Symbol.asyncIterator]()
    for (let seq = 1; seq <= 3; seq++) bus.publish(delta(seq))
    expect(seqs(await take(a, 3))).toEqual([1, 2, 3])
    expect(seqs(await take(b, 3))).toEqual([1, 2, 3])
  })

  it('wakes a subscriber waiting for the next event', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe()[Symbol.asyncIterator]()
    const pending = iterator.next()
    bus.publish(delta(7))
    await expect(pending).resolves.toEqual({ done: false, value: delta(7) })
  })

  it('subscribes when iteration starts; publishing without subscribers is a no-op', async () => {
    const bus = new InProcessEventBus()
    bus.publish(delta(1))
    const iterable = bus.subscribe()
    expect(bus.subscriberCount).toBe(0)
    const iterator = iterable[Symbol.asyncIterator]()
    expect(bus.subscriberCount).toBe(1)
    bus.publish(delta(2))
    expect(seqs(await take(iterator, 1))).toEqual([2])
  })

  it('a slow subscriber of capacity N loses the oldest events and gets one lagged event with the exact count, then the newest N', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe({ capacity: 4 })[Symbol.asyncIterator]()
    for (let seq = 1; seq <= 10; seq++) bus.publish(delta(seq))
    const items = await take(iterator, 5)
    expect(seqs(items)).toEqual(['lagged:6', 7, 8, 9, 10])
    expect(items[0]).toMatchObject({ type: 'lagged', missed: 6 })
    expect(typeof (items[0] as LaggedEvent).timestamp).toBe('number')
    // Caught up: the next overflow is counted afresh.
    for (let seq = 11; seq <= 16; seq++) bus.publish(delta(seq))
    expect(seqs(await take(iterator, 5))).toEqual(['lagged:2', 13, 14, 15, 16])
  })

  it('counts only what was missed when the subscriber had read part of its buffer', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe({ capacity: 3 })[Symbol.asyncIterator]()
    for (let seq = 1; seq <= 3; seq++) bus.publish(delta(seq))
    expect(seqs(await take(iterator, 2))).toEqual([1, 2])
    for (let seq = 4; seq <= 6; seq++) bus.publish(delta(seq))
    expect(seqs(await take(iterator, 4))).toEqual(['lagged:1', 4, 5, 6])
  })

  it('never blocks the publisher: a huge burst to a subscriber that never reads returns at once and keeps only its capacity', async () => {
    const bus = new InProcessEventBus()
    const stalled = bus.subscribe({ capacity: 8 })[Symbol.asyncIterator]()
    const fast = bus.subscribe({ capacity: 100_000 })[Symbol.asyncIterator]()
    const started = performance.now()
    for (let seq = 1; seq <= 50_000; seq++) bus.publish(delta(seq))
    expect(performance.now() - started).toBeLessThan(2_000)
    const items = await take(stalled, 9)
    expect(seqs(items)).toEqual(['lagged:49992', ...Array.from({ length: 8 }, (_, index) => 49_993 + index)])
    // The fast subscriber lost nothing.
    const all = await take(fast, 50_000)
    expect(all).toHaveLength(50_000)
    expect(all.every((event, index) => event.type !== 'lagged' && event.seq === index + 1)).toBe(true)
  }, 10_000)

  it('uses a default capacity of 256', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe()[Symbol.asyncIterator]()
    for (let seq = 1; seq <= 300; seq++) bus.publish(delta(seq))
    const first = await iterator.next()
    expect(first.value).toMatchObject({ type: 'lagged', missed: 44 })
  })

  it('filters events; filtered-out events neither arrive nor count against capacity', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe({ capacity: 2, filter: (event) => event.runId === 'wanted' })[Symbol.asyncIterator]()
    bus.publish(delta(1, 'other'))
    bus.publish(delta(2, 'wanted'))
    for (let seq = 3; seq <= 20; seq++) bus.publish(delta(seq, 'other'))
    bus.publish(delta(21, 'wanted'))
    expect(seqs(await take(iterator, 2))).toEqual([2, 21])
  })

  it('a throwing filter ends that subscriber with the error and never reaches the publisher or other subscribers', async () => {
    const bus = new InProcessEventBus()
    const failure = new Error('bad filter')
    const broken = bus
      .subscribe({
        filter: (event) => {
          if (event.seq === 2) throw failure
          return true
        },
      })
      [Symbol.asyncIterator]()
    const healthy = bus.subscribe()[Symbol.asyncIterator]()
    expect(() => {
      for (let seq = 1; seq <= 3; seq++) bus.publish(delta(seq))
    }).not.toThrow()
    expect(seqs(await take(broken, 1))).toEqual([1])
    await expect(broken.next()).rejects.toBe(failure)
    await expect(broken.next()).resolves.toEqual({ done: true, value: undefined })
    expect(bus.subscriberCount).toBe(1)
    expect(seqs(await take(healthy, 3))).toEqual([1, 2, 3])
  })

  it('return() unsubscribes and ends the iterator', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe()[Symbol.asyncIterator]()
    const other = bus.subscribe()[Symbol.asyncIterator]()
    expect(bus.subscriberCount).toBe(2)
    await iterator.return!()
    expect(bus.subscriberCount).toBe(1)
    bus.publish(delta(1))
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
    await other.return!()
    expect(bus.subscriberCount).toBe(0)
  })

  it('breaking out of for-await unsubscribes', async () => {
    const bus = new InProcessEventBus()
    const received: number[] = []
    const consumer = (async () => {
      for await (const event of bus.subscribe()) {
        if (event.type !== 'lagged') received.push(event.seq)
        if (received.length === 2) break
      }
    })()
    await Promise.resolve()
    expect(bus.subscriberCount).toBe(1)
    for (let seq = 1; seq <= 5; seq++) bus.publish(delta(seq))
    await consumer
    expect(received).toEqual([1, 2])
    expect(bus.subscriberCount).toBe(0)
  })

  it('aborting the signal ends a waiting iterator and unsubscribes', async () => {
    const bus = new InProcessEventBus()
    const controller = new AbortController()
    const iterator = bus.subscribe({ signal: controller.signal })[Symbol.asyncIterator]()
    const pending = iterator.next()
    expect(bus.subscriberCount).toBe(1)
    controller.abort()
    await expect(pending).resolves.toEqual({ done: true, value: undefined })
    expect(bus.subscriberCount).toBe(0)
    bus.publish(delta(1))
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
  })

  it('an already aborted signal yields an iterator that is done at once', async () => {
    const bus = new InProcessEventBus()
    const controller = new AbortController()
    controller.abort()
    const iterator = bus.subscribe({ signal: controller.signal })[Symbol.asyncIterator]()
    expect(bus.subscriberCount).toBe(0)
    bus.publish(delta(1))
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
  })

  it('close() ends every subscriber after the events already buffered', async () => {
    const bus = new InProcessEventBus()
    const iterator = bus.subscribe()[Symbol.asyncIterator]()
    const waiting = bus.subscribe()[Symbol.asyncIterator]()
    const pending = waiting.next()
    bus.publish(delta(1))
    await pending
    const idle = waiting.next()
    bus.close()
    expect(bus.subscriberCount).toBe(0)
    await expect(idle).resolves.toEqual({ done: true, value: undefined })
    expect(seqs(await take(iterator, 5))).toEqual([1])
  })
})

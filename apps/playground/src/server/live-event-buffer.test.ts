// The buffer of unlogged events: kept from their publication until their run's log holds them, void after a kill.
import { type AgentEvent, InProcessEventBus, memoryStores } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { LiveEventBuffer } from './live-event-buffer.js'

const delta = (seq: number, text = `d${seq}`, runId = 'run_a'): AgentEvent => ({
  type: 'text.delta',
  step: 1,
  delta: text,
  runId,
  sessionId: 'ses_a',
  seq,
  timestamp: seq,
})
const seqs = (events: AgentEvent[]) => events.map((event) => event.seq)

describe('LiveEventBuffer', () => {
  it('keeps what was published until the log holds it, and tells subscribers how far the log reaches', async () => {
    const buffer = new LiveEventBuffer()
    const inner = new InProcessEventBus()
    const bus = buffer.wrapBus(inner)
    const stores = buffer.wrapStores(memoryStores())
    const notices = inner.subscribe({ filter: (event) => (event.type as string) === 'playground.durable' })[Symbol.asyncIterator]()
    for (const seq of [1, 2, 3, 4]) bus.publish(delta(seq))
    bus.publish(delta(1, 'other run', 'run_b'))
    expect(seqs(buffer.events('run_a'))).toEqual([1, 2, 3, 4])
    await stores.runs.appendEvents('run_a', [delta(1), delta(2), delta(3)])
    expect(seqs(buffer.events('run_a'))).toEqual([4])
    expect((await notices.next()).value).toMatchObject({ type: 'playground.durable', runId: 'run_a', seq: 3 })
    await stores.runs.appendEvents('run_a', [delta(4)])
    expect(buffer.events('run_a')).toEqual([])
    expect(seqs(buffer.events('run_b'))).toEqual([1])
  })

  it('drops the events a kill voids, and a seq emitted again replaces the one before', () => {
    const buffer = new LiveEventBuffer()
    const bus = buffer.wrapBus(new InProcessEventBus())
    for (const seq of [3, 4, 5, 6]) bus.publish(delta(seq, 'dead'))
    bus.publish({ type: 'playground.reset', runId: 'run_a', sessionId: 'ses_a', seq: 4, timestamp: 0 } as unknown as AgentEvent)
    expect(seqs(buffer.events('run_a'))).toEqual([3, 4])
    bus.publish(delta(4, 'again'))
    bus.publish(delta(5, 'again'))
    expect(buffer.events('run_a').map((event) => `${event.seq}:${(event as { delta: string }).delta}`)).toEqual(['3:dead', '4:again', '5:again'])
  })
})

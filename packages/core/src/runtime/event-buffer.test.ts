// The run's event buffer keeps deltas as strings between commits: what a commit takes must equal, in order and
// shape, the events the run delivered.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../spec/events.js'
import { eventBuffer } from './event-buffer.js'

function stepStarted(seq: number, step: number): AgentEvent {
  return { type: 'step.started', step, runId: 'r', sessionId: 's', seq, timestamp: 100 + seq }
}

describe('EventBuffer', () => {
  it('takes deltas and other events back in order, each delta as the event delivered', () => {
    const buffer = eventBuffer('r', 's', undefined)
    buffer.push(stepStarted(1, 1))
    buffer.pushDelta('reasoning.delta', 1, 'hmm', 2, 102)
    buffer.pushDelta('text.delta', 1, 'Hello', 3, 103)
    buffer.pushDelta('text.delta', 1, ' world', 4, 104)
    buffer.push(stepStarted(5, 2))
    buffer.pushDelta('text.delta', 2, 'again', 6, 106)
    // A seq that does not follow (another event took seq 7 elsewhere) starts a new run of deltas.
    buffer.pushDelta('text.delta', 2, '!', 8, 108)
    expect(buffer.length).toBe(7)
    expect(buffer.take()).toStrictEqual([
      stepStarted(1, 1),
      { type: 'reasoning.delta', step: 1, delta: 'hmm', runId: 'r', sessionId: 's', seq: 2, timestamp: 102 },
      { type: 'text.delta', step: 1, delta: 'Hello', runId: 'r', sessionId: 's', seq: 3, timestamp: 103 },
      { type: 'text.delta', step: 1, delta: ' world', runId: 'r', sessionId: 's', seq: 4, timestamp: 104 },
      stepStarted(5, 2),
      { type: 'text.delta', step: 2, delta: 'again', runId: 'r', sessionId: 's', seq: 6, timestamp: 106 },
      { type: 'text.delta', step: 2, delta: '!', runId: 'r', sessionId: 's', seq: 8, timestamp: 108 },
    ])
    expect(buffer.length).toBe(0)
    expect(buffer.take()).toStrictEqual([])
  })

  it('a sub-agent’s deltas carry its parent run id; without deltas the events are taken as they are', () => {
    const nested = eventBuffer('r', 's', 'parent')
    nested.pushDelta('text.delta', 1, 'one', 1, 101)
    nested.pushDelta('text.delta', 1, 'two', 2, 102)
    expect(nested.take()).toStrictEqual([
      { type: 'text.delta', step: 1, delta: 'one', runId: 'r', sessionId: 's', seq: 1, timestamp: 101, parentRunId: 'parent' },
      { type: 'text.delta', step: 1, delta: 'two', runId: 'r', sessionId: 's', seq: 2, timestamp: 102, parentRunId: 'parent' },
    ])
    const plain = eventBuffer('r', 's', undefined)
    const events = [stepStarted(1, 1), stepStarted(2, 2)]
    for (const event of events) plain.push(event)
    const taken = plain.take()
    expect(taken).toStrictEqual(events)
    expect(taken[0]).toBe(events[0])
  })

  it('events taken back (a failed commit) go in front of the ones buffered since', () => {
    const buffer = eventBuffer('r', 's', undefined)
    buffer.pushDelta('text.delta', 1, 'a', 1, 101)
    buffer.push(stepStarted(2, 1))
    const taken = buffer.take()
    buffer.pushDelta('text.delta', 1, 'b', 3, 103)
    buffer.restore(taken)
    expect(buffer.length).toBe(3)
    expect(buffer.take().map((event) => event.seq)).toEqual([1, 2, 3])
    buffer.restore(taken)
    expect(buffer.take()).toStrictEqual(taken)
  })
})

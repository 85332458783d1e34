import { describe, expect, it } from 'vitest'
import type { ModelMessage } from '../spec/messages.js'
import type { SessionEntry } from '../spec/session-store.js'
import { safeCutPoints } from './safe-boundary.js'

function log(...messages: ModelMessage[]): SessionEntry[] {
  return messages.map((message, index) => ({ kind: 'message', message, sessionId: 's', seq: index + 1, createdAt: 0 }))
}
const user = (text: string): ModelMessage => ({ role: 'user', content: text })
const answer = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] })
const call = (...ids: string[]): ModelMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool-call', toolCallId: id, toolName: 'search', args: {} })),
})
const result = (...ids: string[]): ModelMessage => ({
  role: 'tool',
  content: ids.map((id) => ({ type: 'tool-result', toolCallId: id, toolName: 'search', result: 'ok' })),
})

/** True when cutting after `seq` leaves a tool result whose call was cut away. */
function splitsACall(window: SessionEntry[], seq: number): boolean {
  const kept = window.filter((entry) => entry.seq > seq)
  const keptCalls = new Set<string>()
  for (const entry of kept) {
    if (entry.kind !== 'message') continue
    const { message } = entry
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'tool-call') keptCalls.add(part.toolCallId)
    if (message.role === 'tool') for (const part of message.content) if (!keptCalls.has(part.toolCallId)) return true
  }
  return false
}

describe('safeCutPoints', () => {
  it('is empty for an empty or one-entry window (something must remain)', () => {
    expect(safeCutPoints([])).toEqual([])
    expect(safeCutPoints(log(user('hi')))).toEqual([])
  })

  it('allows a cut before every user or assistant message, never after the last entry', () => {
    expect(safeCutPoints(log(user('a'), answer('b'), user('c'), answer('d')))).toEqual([1, 2, 3])
  })

  it('never cuts between an assistant tool call and its tool result', () => {
    const window = log(user('q'), call('c1'), result('c1'), answer('done'), user('next'))
    expect(safeCutPoints(window)).toEqual([1, 3, 4])
    expect(safeCutPoints(window)).not.toContain(2)
  })

  it('keeps consecutive tool messages (parallel results) with their call', () => {
    const window = log(user('q'), call('a', 'b'), result('a'), result('b'), answer('done'))
    expect(safeCutPoints(window)).toEqual([1, 4])
  })

  it('handles chained tool steps: only cuts before a model turn or user turn', () => {
    const window = log(user('q'), call('a'), result('a'), call('b'), result('b'), answer('done'))
    expect(safeCutPoints(window)).toEqual([1, 3, 5])
  })

  it('does not cut right before a compaction marker', () => {
    const window: SessionEntry[] = [
      ...log(user('a'), answer('b')),
      { kind: 'compaction', compaction: { throughSeq: 1, strategy: 'truncate' }, sessionId: 's', seq: 3, createdAt: 0 },
      { kind: 'message', message: user('c'), sessionId: 's', seq: 4, createdAt: 0 },
    ]
    expect(safeCutPoints(window)).toEqual([1, 3])
  })

  it('no point ever leaves a tool result without its call, over many random conversations', () => {
    let seed = 7
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647
      return seed / 2_147_483_647
    }
    for (let round = 0; round < 300; round++) {
      const messages: ModelMessage[] = [user('start')]
      let id = 0
      for (let turn = 0; turn < 12; turn++) {
        const roll = random()
        if (roll < 0.3) messages.push(user(`u${turn}`))
        else if (roll < 0.5) messages.push(answer(`a${turn}`))
        else {
          const ids = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `c${id++}`)
          messages.push(call(...ids))
          if (random() < 0.5) messages.push(result(...ids))
          else for (const single of ids) messages.push(result(single))
        }
      }
      const window = log(...messages)
      const points = safeCutPoints(window)
      for (const seq of points) expect(splitsACall(window, seq)).toBe(false)
      expect(points.every((seq) => seq < window.length)).toBe(true)
    }
  })
})

import { describe, expect, it } from 'vitest'
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'
import { ContextWindow } from './context-window.js'
import { countMessagesTokens, estimateTokenizer } from './tokenizer.js'

function message(seq: number, message: ModelMessage): SessionEntry {
  return { kind: 'message', message, sessionId: 's', seq, createdAt: 0 }
}
function compaction(seq: number, record: CompactionRecord): SessionEntry {
  return { kind: 'compaction', compaction: record, sessionId: 's', seq, createdAt: 0 }
}
const user = (seq: number, text: string) => message(seq, { role: 'user', content: text })
const assistant = (seq: number, text: string) => message(seq, { role: 'assistant', content: [{ type: 'text', text }] })

function recount(window: ContextWindow): number {
  return countMessagesTokens(window.messages, window.tokenizer)
}

describe('ContextWindow', () => {
  it('starts empty', () => {
    const window = new ContextWindow(estimateTokenizer)
    expect(window.tokens).toBe(0)
    expect(window.entries).toEqual([])
    expect(window.lastSeq).toBe(0)
    expect(window.compaction).toBeUndefined()
  })

  it('adds messages in order and keeps a running token total equal to a full recount', () => {
    const window = new ContextWindow(estimateTokenizer)
    window.add([user(1, 'hello there'), assistant(2, 'Hi! How can I help you today?')])
    expect(window.tokens).toBe(recount(window))
    window.add([user(3, 'Summarize the quarterly report for me, please.')])
    expect(window.messages.map((entry) => entry.role)).toEqual(['user', 'assistant', 'user'])
    expect(window.entries.map((entry) => entry.seq)).toEqual([1, 2, 3])
    expect(window.lastSeq).toBe(3)
    expect(window.tokens).toBe(recount(window))
    expect(window.tokens).toBeGreaterThan(0)
  })

  it('ignores entries it already holds (seq not above lastSeq)', () => {
    const window = new ContextWindow(estimateTokenizer)
    window.add([user(1, 'a'), user(2, 'b')])
    const before = window.tokens
    window.add([user(1, 'a'), user(2, 'b'), user(3, 'c')])
    expect(window.entries.map((entry) => entry.seq)).toEqual([1, 2, 3])
    expect(window.tokens - before).toBe(recount(window) - countMessagesTokens(window.messages.slice(0, 2)))
    expect(window.tokens).toBe(recount(window))
  })

  it('a compaction entry drops exactly the entries it covers and records the compaction', () => {
    const window = new ContextWindow(estimateTokenizer)
    window.add([user(1, 'one'), assistant(2, 'two'), user(3, 'three'), assistant(4, 'four')])
    const record: CompactionRecord = { throughSeq: 2, strategy: 'truncate' }
    window.add([compaction(5, record)])
    expect(window.entries.map((entry) => entry.seq)).toEqual([3, 4])
    expect(window.messages).toEqual([
      { role: 'user', content: 'three' },
      { role: 'assistant', content: [{ type: 'text', text: 'four' }] },
    ])
    expect(window.compaction).toBe(record)
    expect(window.lastSeq).toBe(5)
    expect(window.tokens).toBe(recount(window))
  })

  it('a compaction that covers nothing held drops nothing; one past the end drops everything', () => {
    const window = new ContextWindow(estimateTokenizer)
    window.add([user(5, 'five'), user(6, 'six')])
    window.applyCompaction({ throughSeq: 3, strategy: 'truncate' })
    expect(window.entries).toHaveLength(2)
    window.applyCompaction({ throughSeq: 100, strategy: 'truncate' })
    expect(window.entries).toHaveLength(0)
    expect(window.messages).toHaveLength(0)
    expect(window.tokens).toBe(0)
  })

  it('a compaction that carries the question keeps it at the head (read back from the log too); the next one drops it unless it carries it again', () => {
    const question = { role: 'user' as const, content: 'one' }
    const carrying = { throughSeq: 2, strategy: 'truncate', carried: [{ seq: 1, message: question }] }
    const live = new ContextWindow(estimateTokenizer)
    live.add([user(1, 'one'), assistant(2, 'two'), assistant(3, 'three'), compaction(4, carrying)])
    // A window built from the log after the compaction (a resume, another process) holds the same.
    const loaded = new ContextWindow(estimateTokenizer)
    loaded.add([assistant(3, 'three'), compaction(4, carrying)])
    for (const window of [live, loaded]) {
      expect(window.entries.map((entry) => entry.seq)).toEqual([1, 3])
      expect(window.messages[0]).toEqual(question)
      expect(window.tokens).toBe(recount(window))
    }
    live.add([assistant(5, 'five')])
    live.applyCompaction({ throughSeq: 3, strategy: 'truncate' })
    expect(live.entries.map((entry) => entry.seq)).toEqual([5])
    expect(live.tokens).toBe(recount(live))
  })

  it('tokensAfter(seq) is what would remain after compacting through seq, without changing the window', () => {
    const window = new ContextWindow(estimateTokenizer)
    window.add([user(1, 'first message'), assistant(2, 'second message is longer'), user(3, 'third')])
    const total = window.tokens
    expect(window.tokensAfter(0)).toBe(total)
    expect(window.tokensAfter(1)).toBe(countMessagesTokens(window.messages.slice(1)))
    expect(window.tokensAfter(2)).toBe(countMessagesTokens(window.messages.slice(2)))
    expect(window.tokensAfter(3)).toBe(0)
    expect(window.tokens).toBe(total)
    expect(window.entries).toHaveLength(3)
  })

  it('stays equal to a full recount over a long random mix of adds and compactions', () => {
    let seed = 42
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const window = new ContextWindow(estimateTokenizer)
    let seqCounter = 0
    for (let round = 0; round < 300; round++) {
      const batch: SessionEntry[] = []
      const size = 1 + Math.floor(random() * 4)
      for (let i = 0; i < size; i++) {
        const seq = ++seqCounter
        const text = 'word '.repeat(Math.floor(random() * 40))
        if (random() < 0.1 && window.entries.length) {
          const target = window.entries[Math.floor(random() * window.entries.length)]!.seq
          batch.push(compaction(seq, { throughSeq: target, strategy: 'truncate' }))
        } else if (random() < 0.5) batch.push(user(seq, text))
        else
          batch.push(
            message(seq, {
              role: 'assistant',
              content: [
                { type: 'text', text },
                { type: 'tool-call', toolCallId: `c${seq}`, toolName: 'search', args: { q: text } },
              ],
            }),
          )
      }
      window.add(batch)
      expect(window.tokens).toBe(recount(window))
      expect(window.messages).toHaveLength(window.entries.length)
      if (window.compaction) expect(window.entries.every((entry) => entry.seq > window.compaction!.throughSeq)).toBe(true)
    }
  })
})

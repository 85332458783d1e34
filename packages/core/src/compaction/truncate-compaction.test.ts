import { describe, expect, it } from 'vitest'
import { countMessagesTokens } from '../context/tokenizer.js'
import type { ModelMessage } from '../spec/messages.js'
import type { SessionEntry } from '../spec/session-store.js'
import { CompactionService } from './compaction-service.js'
import { truncateCompaction } from './truncate-compaction.js'

function log(...messages: ModelMessage[]): SessionEntry[] {
  return messages.map((message, index) => ({ kind: 'message', message, sessionId: 's', seq: index + 1, createdAt: 0 }))
}
/** A user message worth exactly `tokens` under the counter below. */
const sized = (tokens: number, role: 'user' | 'tool' = 'user', id = 'c'): ModelMessage =>
  role === 'user'
    ? { role: 'user', content: 'x'.repeat(tokens) }
    : { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 't', result: 'x'.repeat(tokens) }] }
const call = (id: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 't', args: {} }] })

/** One token per character of text (tool calls count 1): makes the arithmetic in the tests obvious. */
function countTokens(messages: ModelMessage[]): number {
  let total = 0
  for (const message of messages) {
    if (typeof message.content === 'string') total += message.content.length
    else for (const part of message.content) total += part.type === 'tool-result' ? String(part.result).length : part.type === 'tool-call' ? 1 : 0
  }
  return total
}

const compact = (window: SessionEntry[], targetTokens: number, counter = countTokens) =>
  truncateCompaction().compact({ sessionId: 's', window, previous: undefined, targetTokens, countTokens: counter, signal: new AbortController().signal })

describe('truncateCompaction', () => {
  it('is named truncate', () => {
    expect(truncateCompaction().name).toBe('truncate')
  })

  it('picks the earliest safe point whose remainder meets the target', async () => {
    // Tokens: 10, 20, 30, 40 → total 100.
    const window = log(sized(10), sized(20), sized(30), sized(40))
    expect(await compact(window, 90)).toEqual({ throughSeq: 1, strategy: 'truncate', tokensBefore: 100, tokensAfter: 90 })
    expect(await compact(window, 89)).toEqual({ throughSeq: 2, strategy: 'truncate', tokensBefore: 100, tokensAfter: 70 })
    expect(await compact(window, 70)).toMatchObject({ throughSeq: 2, tokensAfter: 70 })
    expect(await compact(window, 40)).toMatchObject({ throughSeq: 3, tokensAfter: 40 })
  })

  it('when no point meets the target, cuts as much as it safely can (never the last entry)', async () => {
    const window = log(sized(10), sized(20), sized(30), sized(40))
    expect(await compact(window, 5)).toEqual({ throughSeq: 3, strategy: 'truncate', tokensBefore: 100, tokensAfter: 40 })
  })

  it('skips points that would split a tool call from its result', async () => {
    // seq: 1 user(10) 2 call(1) 3 result(50) 4 user(5)
    const window = log(sized(10), call('a'), sized(50, 'tool', 'a'), sized(5))
    // After seq 1 remains 56 (> 30); after seq 2 would be 55 but is unsafe; after seq 3 remains 5.
    expect(await compact(window, 30)).toEqual({ throughSeq: 3, strategy: 'truncate', tokensBefore: 66, tokensAfter: 5 })
    expect(await compact(window, 56)).toMatchObject({ throughSeq: 1, tokensAfter: 56 })
  })

  it('returns undefined when there is no safe point at all', async () => {
    expect(await compact(log(sized(10)), 0)).toBeUndefined()
    expect(await compact(log(call('a'), sized(10, 'tool', 'a')), 0)).toBeUndefined()
  })

  it('counts compaction markers as nothing and can cut after one', async () => {
    const window: SessionEntry[] = [
      { kind: 'compaction', compaction: { throughSeq: 4, strategy: 'truncate' }, sessionId: 's', seq: 5, createdAt: 0 },
      { kind: 'message', message: sized(10), sessionId: 's', seq: 6, createdAt: 0 },
      { kind: 'message', message: sized(20), sessionId: 's', seq: 7, createdAt: 0 },
    ]
    // A cut right after the marker saves nothing, so it is never the one chosen.
    expect(await compact(window, 30)).toEqual({ throughSeq: 6, strategy: 'truncate', tokensBefore: 30, tokensAfter: 20 })
    expect(await compact(window, 25)).toEqual({ throughSeq: 6, strategy: 'truncate', tokensBefore: 30, tokensAfter: 20 })
  })

  it("never counts on dropping the run's own question: the latest user message a cut passes is carried over", async () => {
    // seq: 1 user(10) 2 call a 3 result(50) 4 call b 5 result(50): one long run whose steps fill the window.
    const window = log(sized(10), call('a'), sized(50, 'tool', 'a'), call('b'), sized(50, 'tool', 'b'))
    const record = await new CompactionService().compact({
      sessionId: 's',
      window,
      previous: undefined,
      targetTokens: 70,
      countTokens,
      signal: new AbortController().signal,
    })
    // After seq 3: 51 left, plus the carried question (10) = 61 ≤ 70.
    expect(record).toEqual({ throughSeq: 3, strategy: 'truncate', tokensBefore: 112, tokensAfter: 61, carried: [{ seq: 1, message: sized(10) }] })
    // A cut that keeps a later user message carries nothing.
    const two = log(sized(10), call('a'), sized(50, 'tool', 'a'), sized(5))
    expect(
      await new CompactionService().compact({
        sessionId: 's',
        window: two,
        previous: undefined,
        targetTokens: 30,
        countTokens,
        signal: new AbortController().signal,
      }),
    ).toEqual({
      throughSeq: 3,
      strategy: 'truncate',
      tokensBefore: 66,
      tokensAfter: 5,
    })
  })

  it('makes no compaction that could only drop the question it would carry back', async () => {
    // The question is the whole window but for one short step: dropping it saves nothing once it is carried.
    expect(await compact(log(sized(100), call('a'), sized(5, 'tool', 'a')), 10)).toBeUndefined()
  })

  it('reports token counts from the counter it is given', async () => {
    const messages = [sized(100), sized(200), sized(300)]
    const record = await compact(log(...messages), 400, countMessagesTokens)
    expect(record?.tokensBefore).toBe(countMessagesTokens(messages))
    expect(record?.tokensAfter).toBe(countMessagesTokens(messages.slice(1)))
  })
  it('carries an earlier summary forward (a fallback from a failing summarizer keeps the older memory)', async () => {
    const window = log(sized(10), sized(10), sized(10))
    const record = await truncateCompaction().compact({
      sessionId: 's',
      window,
      previous: { throughSeq: 0, strategy: 'summarize', summary: '## Goal\nkeep me' },
      targetTokens: 10,
      countTokens,
      signal: new AbortController().signal,
    })
    expect(record).toMatchObject({ throughSeq: 2, strategy: 'truncate', summary: '## Goal\nkeep me' })
  })
})

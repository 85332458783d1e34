import { describe, expect, it } from 'vitest'
import type { ModelMessage } from '../spec/messages.js'
import { countMessagesTokens, countMessageTokens, estimateTokenizer, type Tokenizer, wideCodeUnits } from './tokenizer.js'

describe('estimateTokenizer', () => {
  it('counts about one token per 3.6 Latin characters, rounding up', () => {
    expect(estimateTokenizer.name).toBe('estimate')
    expect(estimateTokenizer.count('')).toBe(0)
    expect(estimateTokenizer.count('a')).toBe(1)
    expect(estimateTokenizer.count('abcd')).toBe(2)
    expect(estimateTokenizer.count('x'.repeat(36))).toBe(10)
    expect(estimateTokenizer.count('x'.repeat(3600))).toBe(1000)
  })

  it('errs on the high side of the usual 4 characters per token for English text', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20)
    expect(estimateTokenizer.count(text)).toBeGreaterThanOrEqual(Math.ceil(text.length / 4))
  })

  it('counts CJK characters as more than one token each', () => {
    expect(estimateTokenizer.count('日本語')).toBe(4)
    expect(estimateTokenizer.count('日本語'.repeat(100))).toBe(330)
    expect(estimateTokenizer.count('ab日本')).toBe(Math.ceil(2 / 3.6 + 2 * 1.1))
  })

  it('counts the code units above U+2E80 exactly, wherever they stand (the regular-expression pre-check only skips text without any)', () => {
    const byLoop = (text: string) => [...Array(text.length).keys()].filter((index) => text.charCodeAt(index) > 0x2e80).length
    const samples = [
      '',
      'plain ascii',
      '\u2e80 at the border',
      '\u2e81',
      'x'.repeat(500) + '語',
      '語' + 'x'.repeat(500),
      '😀 emoji',
      '\uffff\ud800',
      'mixé déjà ⺀⺁',
    ]
    for (const text of samples) expect(wideCodeUnits(text), JSON.stringify(text)).toBe(byLoop(text))
    expect(wideCodeUnits('x'.repeat(500) + '語')).toBe(1)
    expect(wideCodeUnits('😀')).toBe(2)
  })
})

describe('countMessageTokens', () => {
  const fixed: Tokenizer = { name: 'len', count: (text) => text.length }

  it('adds a 4-token overhead per message', () => {
    expect(countMessageTokens({ role: 'user', content: 'hello' }, fixed)).toBe(9)
    expect(countMessageTokens({ role: 'system', content: '' }, fixed)).toBe(4)
  })

  it('counts every part kind of a structured message', () => {
    const assistant: ModelMessage = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'answer' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'search', args: { q: 'x' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'raw', args: 'not json' },
      ],
    }
    // 4 + 5 + 6 + (8 + 6 + 9) + (8 + 3 + 8)
    expect(countMessageTokens(assistant, fixed)).toBe(4 + 5 + 6 + (8 + 6 + '{"q":"x"}'.length) + (8 + 3 + 8))
    const tool: ModelMessage = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'search', result: { hits: 2 } },
        { type: 'tool-result', toolCallId: 'c2', toolName: 'raw', result: 'plain', isError: true },
      ],
    }
    expect(countMessageTokens(tool, fixed)).toBe(4 + (8 + '{"hits":2}'.length) + (8 + 5))
  })

  it('budgets files: an artifact reference is cheap, inline data is not', () => {
    const withArtifact: ModelMessage = { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: 'artifact:abc' }] }
    const inline: ModelMessage = { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] }
    expect(countMessageTokens(withArtifact, fixed)).toBe(20)
    expect(countMessageTokens(inline, fixed)).toBe(1_004)
  })

  it('uses the estimate tokenizer by default, and countMessagesTokens sums messages', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: [{ type: 'text', text: 'general kenobi' }] },
    ]
    expect(countMessageTokens(messages[0]!)).toBe(4 + estimateTokenizer.count('hello there'))
    expect(countMessagesTokens(messages)).toBe(countMessageTokens(messages[0]!) + countMessageTokens(messages[1]!))
    expect(countMessagesTokens([])).toBe(0)
  })
})

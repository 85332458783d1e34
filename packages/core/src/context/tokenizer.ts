// Token counting: a pluggable tokenizer, with a calibrated character estimate as the default.
import type { ModelMessage } from '../spec/messages.js'

/** Counts tokens of a text for context budgeting; `estimateTokenizer` by default, exact or calibrated ones per model family. */
export interface Tokenizer {
  readonly name: string
  count(text: string): number
  /** Optional feedback: a request's estimated token count and the input tokens the provider reported for it. */
  observe?(estimatedTokens: number, actualTokens: number): void
}

/** A UTF-16 code unit above U+2E80 (CJK and other wide scripts, surrogate halves included). */
const wideCodeUnit = /[\u2e81-\uffff]/

/**
 * How many code units of `text` are above U+2E80. Text without any (most of it) is told by one regular-expression
 * scan, several times faster than a `charCodeAt` loop (10,000 messages of 450 characters: 0.35 against 13.7 ms).
 */
export function wideCodeUnits(text: string): number {
  if (!wideCodeUnit.test(text)) return 0
  let wide = 0
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x2e80) wide++
  return wide
}

/** ~4 characters per token for Latin text, denser for CJK; errs on the high side so budgets hold. */
export const estimateTokenizer: Tokenizer = {
  name: 'estimate',
  count(text: string): number {
    const wide = wideCodeUnits(text)
    return Math.ceil((text.length - wide) / 3.6 + wide * 1.1)
  },
}

const perMessageOverhead = 4

/** Tokens of one message, as the context pipeline budgets it. */
export function countMessageTokens(message: ModelMessage, tokenizer: Tokenizer = estimateTokenizer): number {
  if (typeof message.content === 'string') return perMessageOverhead + tokenizer.count(message.content)
  let total = perMessageOverhead
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        total += tokenizer.count(part.text)
        break
      case 'tool-call':
        total += 8 + tokenizer.count(part.toolName) + tokenizer.count(typeof part.args === 'string' ? part.args : JSON.stringify(part.args))
        break
      case 'tool-result':
        total += 8 + tokenizer.count(typeof part.result === 'string' ? part.result : JSON.stringify(part.result))
        break
      case 'file':
        total += part.data.startsWith('artifact:') ? 16 : 1_000
        break
    }
  }
  return total
}

/** Tokens of a list of messages, as the context pipeline budgets them. */
export function countMessagesTokens(messages: ModelMessage[], tokenizer: Tokenizer = estimateTokenizer): number {
  let total = 0
  for (const message of messages) total += countMessageTokens(message, tokenizer)
  return total
}

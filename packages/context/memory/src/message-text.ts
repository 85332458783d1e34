// The plain text of a message, as memory indexes and shows it (tool calls and results included when asked).
import type { ModelMessage } from '@spindle/core'

/**
 * The plain text of a message as memory indexes and shows it: its text parts, and its tool calls and results as
 * `[called name(args)]` and `[name returned] result`, trimmed and cut to `maxChars` characters (then `…`).
 *
 * @example
 * messageText({ role: 'user', content: 'Where is my order?' }, 200) // 'Where is my order?'
 */
export function messageText(message: ModelMessage, maxChars: number): string {
  let text = ''
  if (typeof message.content === 'string') text = message.content
  else {
    const pieces: string[] = []
    for (const part of message.content) {
      if (part.type === 'text') pieces.push(part.text)
      else if (part.type === 'tool-call') pieces.push(`[called ${part.toolName}(${typeof part.args === 'string' ? part.args : JSON.stringify(part.args)})]`)
      else if (part.type === 'tool-result')
        pieces.push(`[${part.toolName} returned] ${typeof part.result === 'string' ? part.result : JSON.stringify(part.result)}`)
    }
    text = pieces.join('\n')
  }
  text = text.trim()
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text
}

// Renders the session entries being compacted as a plain transcript for the summarizer, clipping long parts.
import type { SessionEntry } from '@spindle/core'

export interface TranscriptOptions {
  /** Longest text kept from one tool result or tool-call argument list (head and tail). */
  maxPartChars: number
}

/** One line block per message: `[user]`, `[assistant]`, `[tool call name]`, `[tool result name]`. */
export function renderTranscript(entries: SessionEntry[], options: TranscriptOptions): string {
  const blocks: string[] = []
  for (const entry of entries) {
    if (entry.kind !== 'message') continue
    const { message } = entry
    if (typeof message.content === 'string') {
      blocks.push(`[${message.role}] ${message.content}`)
      continue
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          blocks.push(`[${message.role}] ${part.text}`)
          break
        case 'tool-call':
          blocks.push(`[tool call ${part.toolName}] ${clip(typeof part.args === 'string' ? part.args : JSON.stringify(part.args), options.maxPartChars)}`)
          break
        case 'tool-result':
          blocks.push(
            `[tool result ${part.toolName}${part.isError ? ', error' : ''}] ${clip(typeof part.result === 'string' ? part.result : JSON.stringify(part.result), options.maxPartChars)}`,
          )
          break
        case 'file':
          blocks.push(`[${message.role} file ${part.mediaType}]`)
          break
        // Reasoning is the model's scratchpad: the summary keeps outcomes, not thoughts.
      }
    }
  }
  return blocks.join('\n')
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const half = Math.floor(max / 2)
  return `${text.slice(0, half)} …[${text.length - 2 * half} characters omitted]… ${text.slice(-half)}`
}

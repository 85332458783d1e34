// Renders the session entries being compacted as a plain transcript for the summarizer, clipping long parts.
import type { SessionEntry } from '@spindle/core'

/**
 * Options of `renderTranscript(entries, options)`: how much of one long tool result or argument list is kept (its
 * head and tail) when the entries being compacted are rendered as a transcript for the summarizer.
 */
export interface TranscriptOptions {
  /** Longest text kept from one tool result or tool-call argument list (head and tail). */
  maxPartChars: number
}

/** One line block per message: `[user]`, `[assistant]`, `[tool call name]`, `[tool result name]`. */
export function renderTranscript(entries: SessionEntry[], options: TranscriptOptions): string {
  return transcriptBlocks(entries, options).join('\n')
}

/**
 * The transcript in parts of at most `maxChars` characters each (for a `maxChars` above 40), split between blocks
 * (a block longer than that alone is clipped, head and tail): what one summarization is sent.
 */
export function transcriptChunks(entries: SessionEntry[], options: TranscriptOptions & { maxChars: number }): string[] {
  const chunks: string[] = []
  let current = ''
  for (const block of transcriptBlocks(entries, options)) {
    const text = clip(block, options.maxChars)
    if (current && current.length + 1 + text.length > options.maxChars) {
      chunks.push(current)
      current = ''
    }
    current = current ? `${current}\n${text}` : text
  }
  if (current) chunks.push(current)
  return chunks
}

function transcriptBlocks(entries: SessionEntry[], options: TranscriptOptions): string[] {
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
  return blocks
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text
  // The marker's room (under 40 characters) comes out of the text kept, so a clipped text stays within `max`.
  const half = Math.max(0, Math.floor((max - 40) / 2))
  return `${text.slice(0, half)} …[${text.length - 2 * half} characters omitted]… ${text.slice(text.length - half)}`
}

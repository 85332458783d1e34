// Tool results for Chat Completions, whose `tool` messages take text only: an image a tool returned is named in the
// tool message and sent in one `user` message right after the tool messages of that step, so a vision model sees it.
import type { ToolResultPart } from '@spindle/core'
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { toolResultText } from '../convert/shared-content.js'
import { toolResultParts } from '@spindle/core/plugin-kit'

/**
 * Appends one `tool` message per result and, when results hold images (see `toolResultParts`), a `user` message with
 * those images, each introduced by the text the tool message refers to ("image 1 of call_1 (get_chart)").
 */
export function pushToolResults(messages: ChatCompletionMessageParam[], results: ToolResultPart[]): void {
  const images: ChatCompletionContentPart[] = []
  for (const result of results) {
    const parts = toolResultParts(result.result)
    if (!parts) {
      messages.push({ role: 'tool', tool_call_id: result.toolCallId, content: toolResultText(result.result, result.isError) })
      continue
    }
    let count = 0
    const text = parts
      .map((part) => {
        if (part.type === 'text') return part.text
        const label = `image ${++count} of ${result.toolCallId} (${result.toolName})`
        images.push({ type: 'text', text: `${label}:` }, { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${part.data}` } })
        return `[${label}: ${part.mediaType}, attached in the next user message]`
      })
      .join('\n')
    messages.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.isError ? `Error: ${text}` : text })
  }
  if (images.length > 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tool calls above.' }, ...images] })
}

// Spindle messages → Anthropic Messages API `system` blocks and `messages`.
import type Anthropic from '@anthropic-ai/sdk'
import type { JsonValue, ModelMessage } from '@spindle/core'
import { convertFile } from './convert-file.js'
import { isAnthropicSignature } from './reasoning-signature.js'
import { toolResultParts, wellFormed } from '@spindle/core/plugin-kit'

type MessageParam = Anthropic.Messages.MessageParam
type ContentBlockParam = Anthropic.Messages.ContentBlockParam
type TextBlockParam = Anthropic.Messages.TextBlockParam
type ImageBlockParam = Anthropic.Messages.ImageBlockParam
type ToolResultBlockParam = Anthropic.Messages.ToolResultBlockParam

export interface ConvertedMessages {
  system: TextBlockParam[]
  messages: MessageParam[]
}

/**
 * Converts the conversation. System messages become system blocks (wherever they appear, in order);
 * tool results become `tool_result` blocks of a user message; consecutive messages of one role are
 * merged (Anthropic requires alternation), with tool results first in a merged user message.
 * Reasoning with an Anthropic signature goes back as a `thinking` block, Anthropic redacted reasoning
 * as `redacted_thinking`; reasoning without either, or signed by another provider (the API cannot
 * verify it and rejects the request), is dropped.
 */
export function convertMessages(messages: ModelMessage[]): ConvertedMessages {
  const system: TextBlockParam[] = []
  const converted: MessageParam[] = []

  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return
    const last = converted[converted.length - 1]
    if (last && last.role === role) {
      const existing = last.content as ContentBlockParam[]
      // tool_result blocks must open a user message.
      const results = [...existing, ...blocks].filter((block) => block.type === 'tool_result')
      const others = [...existing, ...blocks].filter((block) => block.type !== 'tool_result')
      last.content = role === 'user' ? [...results, ...others] : [...existing, ...blocks]
    } else converted.push({ role, content: blocks })
  }

  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (message.content) system.push({ type: 'text', text: message.content })
        break
      case 'user':
        push(
          'user',
          typeof message.content === 'string'
            ? message.content
              ? [{ type: 'text', text: message.content }]
              : []
            : message.content.flatMap((part): ContentBlockParam[] =>
                part.type === 'text' ? (part.text ? [{ type: 'text', text: part.text }] : []) : [convertFile(part)],
              ),
        )
        break
      case 'assistant': {
        const blocks: ContentBlockParam[] = []
        for (const part of message.content) {
          if (part.type === 'text') {
            if (part.text) blocks.push({ type: 'text', text: part.text })
          } else if (part.type === 'reasoning') {
            if (part.redacted !== undefined) {
              if (isAnthropicSignature(part.redacted)) blocks.push({ type: 'redacted_thinking', data: part.redacted })
            } else if (isAnthropicSignature(part.signature)) blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature })
          } else {
            blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: toolInput(part.args) })
          }
        }
        push('assistant', blocks)
        break
      }
      case 'tool':
        push(
          'user',
          message.content.map((part) => ({
            type: 'tool_result' as const,
            tool_use_id: part.toolCallId,
            content: toolResultContent(part.result),
            ...(part.isError ? { is_error: true } : {}),
          })),
        )
        break
    }
  }
  return { system, messages: converted }
}

/**
 * A tool result as `tool_result` content: text (strings as is, other values as JSON), or text and `image` blocks when
 * it holds images (see `toolResultParts`), so the model sees them. Empty text blocks are left out: the API refuses them.
 */
function toolResultContent(result: JsonValue): ToolResultBlockParam['content'] {
  const parts = toolResultParts(result)
  // Well formed before JSON.stringify, which would write a lone surrogate as an escape the API refuses.
  if (!parts) return typeof result === 'string' ? result : JSON.stringify(wellFormed(result))
  return parts.flatMap((part): Array<TextBlockParam | ImageBlockParam> => {
    if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : []
    return [{ type: 'image', source: { type: 'base64', media_type: part.mediaType as Anthropic.Messages.Base64ImageSource['media_type'], data: part.data } }]
  })
}

/** Tool arguments as the object Anthropic expects (raw text that is not a JSON object is wrapped). */
function toolInput(args: JsonValue): Record<string, unknown> {
  let value: unknown = args
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args)
    } catch {
      return { input: args }
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { input: value }
}

// Spindle messages → Anthropic Messages API `system` blocks and `messages`.
import type Anthropic from '@anthropic-ai/sdk'
import { ConfigurationError, type FilePart, type JsonValue, type ModelMessage } from '@spindle/core'

type MessageParam = Anthropic.Messages.MessageParam
type ContentBlockParam = Anthropic.Messages.ContentBlockParam
type TextBlockParam = Anthropic.Messages.TextBlockParam

export interface ConvertedMessages {
  system: TextBlockParam[]
  messages: MessageParam[]
}

/**
 * Converts the conversation. System messages become system blocks (wherever they appear, in order);
 * tool results become `tool_result` blocks of a user message; consecutive messages of one role are
 * merged (Anthropic requires alternation), with tool results first in a merged user message.
 * Reasoning with a signature goes back as a `thinking` block, redacted reasoning as
 * `redacted_thinking`; reasoning without either (e.g. from another provider) cannot be verified
 * by the API and is dropped.
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
            if (part.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: part.redacted })
            else if (part.signature !== undefined) blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature })
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
            content: typeof part.result === 'string' ? part.result : JSON.stringify(part.result),
            ...(part.isError ? { is_error: true } : {}),
          })),
        )
        break
    }
  }
  return { system, messages: converted }
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

function convertFile(part: FilePart): ContentBlockParam {
  if (part.data.startsWith('artifact:')) {
    throw new ConfigurationError(
      `[spindle/anthropic] file part "${part.name ?? part.data}" is an artifact reference; resolve it to base64 data or a URL before calling the model`,
    )
  }
  const isUrl = /^https?:\/\//i.test(part.data)
  if (part.mediaType.startsWith('image/')) {
    return isUrl
      ? { type: 'image', source: { type: 'url', url: part.data } }
      : { type: 'image', source: { type: 'base64', media_type: part.mediaType as 'image/png', data: part.data } }
  }
  if (part.mediaType === 'application/pdf') {
    return isUrl
      ? { type: 'document', source: { type: 'url', url: part.data }, ...(part.name ? { title: part.name } : {}) }
      : { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data }, ...(part.name ? { title: part.name } : {}) }
  }
  if (part.mediaType.startsWith('text/')) {
    if (isUrl) throw new ConfigurationError(`[spindle/anthropic] text file "${part.name ?? part.data}" must be sent as base64 data, not a URL`)
    const text = Buffer.from(part.data, 'base64').toString('utf8')
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...(part.name ? { title: part.name } : {}) }
  }
  throw new ConfigurationError(
    `[spindle/anthropic] unsupported file media type "${part.mediaType}"; Anthropic accepts images, PDF and text documents`,
  )
}

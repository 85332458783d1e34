// The message model shared by the kernel, stores and providers.
import type { JsonValue } from './json.js'

export interface TextPart {
  type: 'text'
  text: string
}

export interface ReasoningPart {
  type: 'reasoning'
  text: string
  /** Opaque provider signature (e.g. Anthropic thinking) that must be sent back unchanged. */
  signature?: string
  /** Redacted reasoning payload, sent back unchanged. */
  redacted?: string
}

export interface FilePart {
  type: 'file'
  mediaType: string
  /** Base64 data, or an artifact reference `artifact:<id>`, or a URL. */
  data: string
  name?: string
}

export interface ToolCallPart {
  type: 'tool-call'
  toolCallId: string
  toolName: string
  /** Parsed arguments (the raw text when it was not valid JSON). */
  args: JsonValue
}

export interface ToolResultPart {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  result: JsonValue
  isError?: boolean
}

export interface SystemMessage {
  role: 'system'
  content: string
}
export interface UserMessage {
  role: 'user'
  content: string | Array<TextPart | FilePart>
}
export interface AssistantMessage {
  role: 'assistant'
  content: Array<TextPart | ReasoningPart | ToolCallPart>
}
export interface ToolMessage {
  role: 'tool'
  content: ToolResultPart[]
}

export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export interface Usage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
  reasoningTokens?: number
  totalTokens?: number
  /** Cost in US dollars, when a price table knows the model. */
  costUsd?: number
}

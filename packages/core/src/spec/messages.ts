// The message model shared by the kernel, stores and providers.
import type { JsonValue } from './json.js'

/** Plain text in a user or assistant message. */
export interface TextPart {
  type: 'text'
  text: string
}

/** The model's reasoning (thinking) in an assistant message; `signature` / `redacted` travel back to the provider unchanged. */
export interface ReasoningPart {
  type: 'reasoning'
  text: string
  /** Opaque provider signature (e.g. Anthropic thinking) that must be sent back unchanged. */
  signature?: string
  /** Redacted reasoning payload, sent back unchanged. */
  redacted?: string
}

/** A file in a user message: base64 data, an artifact reference (`artifact:<id>`) or a URL, with its media type. */
export interface FilePart {
  type: 'file'
  mediaType: string
  /** Base64 data, or an artifact reference `artifact:<id>`, or a URL. */
  data: string
  name?: string
}

/** A tool call the model made, in an assistant message; its result comes back as a `ToolResultPart` with the same `toolCallId`. */
export interface ToolCallPart {
  type: 'tool-call'
  toolCallId: string
  toolName: string
  /** Parsed arguments (the raw text when it was not valid JSON). */
  args: JsonValue
}

/** The result of one tool call (`isError` when the tool failed or was refused), in a tool message. */
export interface ToolResultPart {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  result: JsonValue
  isError?: boolean
}

/** System instructions; the context pipeline joins the system sections into the first message. */
export interface SystemMessage {
  role: 'system'
  content: string
}
/** What the user said: text, or text and file parts. */
export interface UserMessage {
  role: 'user'
  content: string | Array<TextPart | FilePart>
}
/** What the model answered: text, reasoning and tool calls, in order. */
export interface AssistantMessage {
  role: 'assistant'
  content: Array<TextPart | ReasoningPart | ToolCallPart>
}
/** The results of an assistant message's tool calls. */
export interface ToolMessage {
  role: 'tool'
  content: ToolResultPart[]
}

/** One message of a conversation, as stored in the session log and sent to providers. */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/** Token usage of a model call or a run (input counts cached tokens too), and its cost when a price table knows the model. */
export interface Usage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
  reasoningTokens?: number
  totalTokens?: number
  /** Cost in US dollars, when a price table knows the model. */
  costUsd?: number
}

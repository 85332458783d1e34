// The AI SDK UI message stream protocol (v1, what `useChat` reads), as plain types: the chunks Spindle writes and
// the UI messages it reads. Structurally the `UIMessageChunk` and `UIMessage` of `ai@6`, without depending on `ai`.

/** Metadata Spindle puts on the assistant message: the run it came from, its usage and how it ended. */
export interface SpindleMessageMetadata {
  runId: string
  sessionId: string
  /** The run's tokens so far (its running total, a resumed run's included). */
  usage?: { inputTokens: number; outputTokens: number; totalTokens?: number }
  finishReason?: string
}

/** One chunk of the UI message stream. */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: SpindleMessageMetadata }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'message-metadata'; messageMetadata: SpindleMessageMetadata }
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason?: string }
  | { type: 'finish'; finishReason?: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other'; messageMetadata?: SpindleMessageMetadata }

/** A part of a `useChat` UI message, as far as the adapter reads it (text, file, and tool parts with their state). */
export interface UIMessagePartLike {
  type: string
  text?: unknown
  url?: unknown
  mediaType?: unknown
  filename?: unknown
  toolCallId?: unknown
  state?: unknown
  approval?: unknown
  [key: string]: unknown
}

/** A `useChat` UI message (`UIMessage` of `ai@6`), as far as the adapter reads it. */
export interface UIMessageLike {
  id: string
  role: 'system' | 'user' | 'assistant'
  metadata?: unknown
  parts: UIMessagePartLike[]
}

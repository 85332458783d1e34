// fromUIMessages: `useChat`'s request body as a Spindle run's input. The session keeps the history, so only the new
// user message(s) — those after the last assistant message — become the input; approvals the user answered in the
// UI (tool parts in state `approval-responded`) are returned for `runtime.approve`.
import { AdmissionError, type FilePart, type TextPart, type UserMessage } from '@spindle/core'
import type { UIMessageLike } from './ui-message-chunk.js'

/** An approval answered in the UI: the run (from the assistant message's metadata) and the call it decides. */
export interface UIApproval {
  runId: string
  callId: string
  approved: boolean
  reason?: string
}

/** What `fromUIMessages()` reads from a `useChat` request: the new user messages (the run's input) and the approvals answered since the last request. */
export interface FromUIMessagesResult {
  /** The run's input: the new user messages (undefined when the request only answers approvals). */
  input: UserMessage[] | undefined
  /** Approvals answered since the last request, to pass to `runtime.approve` before resuming their run. */
  approvals: UIApproval[]
  /** The chat id `useChat` sent (use it as the session id, or map it to one). */
  chatId: string | undefined
}

/**
 * Reads a `useChat` request body (`{ id, messages }`) or its messages.
 *
 * @example
 * const { input, approvals } = fromUIMessages(await request.json())
 */
export function fromUIMessages(body: { id?: string; messages: UIMessageLike[] } | UIMessageLike[]): FromUIMessagesResult {
  const messages = Array.isArray(body) ? body : body?.messages
  if (!Array.isArray(messages))
    throw new AdmissionError("[spindle/ai-sdk] fromUIMessages: expected useChat's request body ({ id, messages }) or an array of UI messages")
  const chatId = Array.isArray(body) ? undefined : typeof body.id === 'string' ? body.id : undefined
  let lastAssistant = -1
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === 'assistant') {
      lastAssistant = index
      break
    }
  }
  const approvals = lastAssistant >= 0 ? approvalsOf(messages[lastAssistant]!) : []
  const input: UserMessage[] = []
  for (const message of messages.slice(lastAssistant + 1)) {
    if (message.role !== 'user') continue
    const content = userContent(message)
    if (content.length > 0) input.push({ role: 'user', content })
  }
  if (input.length === 0 && approvals.length === 0) {
    throw new AdmissionError('[spindle/ai-sdk] fromUIMessages: the request has no new user message and answers no approval; nothing to run')
  }
  return { input: input.length > 0 ? input : undefined, approvals, chatId }
}

function userContent(message: UIMessageLike): Array<TextPart | FilePart> {
  const content: Array<TextPart | FilePart> = []
  for (const part of message.parts ?? []) {
    if (part.type === 'text' && typeof part.text === 'string') content.push({ type: 'text', text: part.text })
    else if (part.type === 'file' && typeof part.url === 'string' && typeof part.mediaType === 'string') {
      // A data URL carries base64 data; Spindle's file part takes the data itself, or a URL.
      const data = part.url.startsWith('data:') ? part.url.slice(part.url.indexOf(',') + 1) : part.url
      content.push({ type: 'file', mediaType: part.mediaType, data, ...(typeof part.filename === 'string' && { name: part.filename }) })
    }
  }
  return content
}

function approvalsOf(message: UIMessageLike): UIApproval[] {
  const runId = (message.metadata as { runId?: unknown } | undefined)?.runId
  const approvals: UIApproval[] = []
  for (const part of message.parts ?? []) {
    if (part.state !== 'approval-responded' || typeof part.toolCallId !== 'string') continue
    const approval = part.approval as { approved?: boolean; reason?: string } | undefined
    if (typeof approval?.approved !== 'boolean') continue
    if (typeof runId !== 'string')
      throw new AdmissionError(
        '[spindle/ai-sdk] fromUIMessages: an approval was answered on a message without its runId metadata; stream runs with toUIMessageStream so messages carry it',
      )
    approvals.push({ runId, callId: part.toolCallId, approved: approval.approved, ...(typeof approval.reason === 'string' && { reason: approval.reason }) })
  }
  return approvals
}

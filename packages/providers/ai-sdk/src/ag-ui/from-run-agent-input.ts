// fromRunAgentInput: an AG-UI `RunAgentInput` as a Spindle run's input on the session `threadId` — only the user
// messages after the last assistant message (the session keeps the history) — and its `resume` entries as approvals.
import { AdmissionError, type FilePart, type TextPart, type UserMessage } from '@spindle/core'
import type { UIApproval } from '../ui/from-ui-messages.js'
import { interruptIdSeparator } from './ag-ui-events.js'

/** The parts of `RunAgentInput` (`@ag-ui/core`) the adapter reads. */
export interface RunAgentInputLike {
  threadId: string
  runId: string
  messages: Array<{ id: string; role: string; content?: unknown }>
  resume?: Array<{ interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }>
  [key: string]: unknown
}

export interface FromRunAgentInputResult {
  /** Use it as the run's `sessionId`. */
  sessionId: string
  input: UserMessage[] | undefined
  /** Decisions on interrupted tool calls (pass them to `approveAndResume`). */
  approvals: UIApproval[]
}

/**
 * @example
 * const { sessionId, input, approvals } = fromRunAgentInput(await request.json())
 * const events = approvals.length ? approveAndResume(runtime, approvals, { agent }) : runtime.stream({ sessionId, agent, input })
 * return toAgUiResponse(events)
 */
export function fromRunAgentInput(runInput: RunAgentInputLike): FromRunAgentInputResult {
  if (typeof runInput?.threadId !== 'string' || !Array.isArray(runInput.messages)) {
    throw new AdmissionError('[spindle/ai-sdk] fromRunAgentInput: expected an AG-UI RunAgentInput ({ threadId, runId, messages, tools, context })')
  }
  const approvals: UIApproval[] = []
  for (const entry of runInput.resume ?? []) {
    const at = entry.interruptId.indexOf(interruptIdSeparator)
    if (at <= 0) throw new AdmissionError(`[spindle/ai-sdk] fromRunAgentInput: interrupt "${entry.interruptId}" was not issued by a Spindle run`)
    const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown }
    const approved = entry.status === 'resolved' && payload.approved !== false
    approvals.push({
      runId: entry.interruptId.slice(0, at),
      callId: entry.interruptId.slice(at + interruptIdSeparator.length),
      approved,
      ...(typeof payload.reason === 'string' && { reason: payload.reason }),
    })
  }
  let lastAssistant = -1
  runInput.messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index
  })
  const input: UserMessage[] = []
  for (const message of runInput.messages.slice(lastAssistant + 1)) {
    if (message.role !== 'user') continue
    const content = userContent(message.content)
    if (content.length > 0) input.push({ role: 'user', content })
  }
  if (input.length === 0 && approvals.length === 0) throw new AdmissionError('[spindle/ai-sdk] fromRunAgentInput: no new user message and no resume entry; nothing to run')
  return { sessionId: runInput.threadId, input: input.length > 0 ? input : undefined, approvals }
}

function userContent(content: unknown): Array<TextPart | FilePart> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  const parts: Array<TextPart | FilePart> = []
  for (const part of content as Array<{ type?: unknown; text?: unknown }>) {
    if (part?.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text })
  }
  return parts
}

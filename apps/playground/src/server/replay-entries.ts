// Edit and replay: the session log of a run up to one of its snapshots, with edits (a message rewritten, a tool result
// replaced), split into what a new session copies as history and what the new run takes as its input — so that the
// run starts where the snapshot was, with the model seeing exactly the edited state.
import type { JsonValue, ModelMessage, SessionEntry, SessionEntryInput } from '@spindle/core'
import { forkEntries } from './fork-entries.js'

/** The edits a replay applies to the copied log before it runs. */
export interface ReplayEdits {
  /** New text for a user or assistant message, by its entry's seq in the source session (tool calls are kept). */
  messages?: Array<{ seq: number; text: string }>
  /** A new result for a tool call, by its call id (it stops being an error). */
  toolResults?: Array<{ callId: string; result: JsonValue }>
}

export interface ReplayPlan {
  /** Copied into the new session as history (the entries before the run's first one). */
  history: SessionEntryInput[]
  /** The new run's input: the run's own messages up to the snapshot, edited. */
  input: ModelMessage[]
  /** The calls the snapshot left unanswered, answered "not executed" (see `forkEntries`). */
  notRun: string[]
  /** The final answer the replay drops so that the model answers again (a snapshot taken once the run was done). */
  droppedAnswer: boolean
  /** The edits that named nothing in the copied log (an unknown seq or call id). */
  unmatched: string[]
}

/**
 * Plans a replay from `entries` (the source session's log up to the snapshot's last seq) for a run whose first entry
 * has seq `firstSeq`. Throws when the edited input would be empty (nothing of the run was logged).
 */
export function planReplay(entries: SessionEntry[], firstSeq: number, edits: ReplayEdits = {}): ReplayPlan {
  const unmatched: string[] = []
  const texts = new Map((edits.messages ?? []).map((edit) => [edit.seq, edit.text]))
  const results = new Map((edits.toolResults ?? []).map((edit) => [edit.callId, edit.result]))
  const edited = entries.map((entry) => {
    if (entry.kind !== 'message') return entry
    const text = texts.get(entry.seq)
    texts.delete(entry.seq)
    let message = text === undefined ? entry.message : withText(entry.message, text, entry.seq)
    if (message.role === 'tool' && message.content.some((part) => results.has(part.toolCallId))) {
      message = {
        ...message,
        content: message.content.map((part) => {
          if (!results.has(part.toolCallId)) return part
          const result = results.get(part.toolCallId)!
          results.delete(part.toolCallId)
          return { ...part, result, isError: false }
        }),
      }
    }
    return { ...entry, message }
  })
  unmatched.push(...[...texts.keys()].map((seq) => `message ${seq}`), ...[...results.keys()].map((callId) => `tool call ${callId}`))
  const head = edited.filter((entry) => entry.seq < firstSeq)
  const own = edited.filter((entry) => entry.seq >= firstSeq)
  const { entries: history } = forkEntries(head)
  const closed = forkEntries(own)
  const input = closed.entries.flatMap((entry) => (entry.kind === 'message' && entry.message ? [entry.message] : []))
  // A snapshot of a finished run ends with its answer: dropped, the model gives it again from the edited state.
  const last = input.at(-1)
  const droppedAnswer = last?.role === 'assistant' && !last.content.some((part) => part.type === 'tool-call') && input.length > 1
  if (droppedAnswer) input.pop()
  if (!input.length) throw new Error('[spindle/playground] this snapshot holds no message of its run to replay from; pick a later one')
  return { history, input, notRun: closed.notRun, droppedAnswer, unmatched }
}

function withText(message: ModelMessage, text: string, seq: number): ModelMessage {
  if (message.role === 'user') return { role: 'user', content: text }
  if (message.role === 'assistant') {
    const calls = message.content.filter((part) => part.type === 'tool-call')
    return { ...message, content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] }
  }
  throw new Error(
    `[spindle/playground] entry ${seq} is a ${message.role} message: only user and assistant messages have text to rewrite (replace a tool result by its call id)`,
  )
}

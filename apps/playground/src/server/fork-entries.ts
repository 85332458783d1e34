// The entries a fork copies from its source session. A snapshot taken while tool calls waited (for an approval) ends
// with an assistant message whose calls have no result: providers refuse such a history, so the fork answers each
// of them "not executed", as the kernel does for the calls of a run that ended before running them.
import type { ModelMessage, SessionEntry, SessionEntryInput, ToolResultPart } from '@spindle/core'

/** The result a fork gives a call its source never answered (the UI shows it "not run"). */
export const forkedBeforeDecision = 'Not executed: the session was forked before this call was decided or ran.'

export interface ForkedEntries {
  entries: SessionEntryInput[]
  /** The calls answered "not executed" by the fork. */
  notRun: string[]
}

export function forkEntries(source: SessionEntry[]): ForkedEntries {
  const entries: SessionEntryInput[] = []
  const notRun: string[] = []
  let open: Array<{ callId: string; toolName: string }> = []
  const close = () => {
    if (!open.length) return
    const content: ToolResultPart[] = open.map((call) => ({
      type: 'tool-result',
      toolCallId: call.callId,
      toolName: call.toolName,
      result: { error: forkedBeforeDecision },
      isError: true,
    }))
    entries.push({ kind: 'message', message: { role: 'tool', content } })
    notRun.push(...open.map((call) => call.callId))
    open = []
  }
  for (const entry of source) {
    if (entry.kind !== 'message') {
      close()
      entries.push({ kind: 'compaction', compaction: entry.compaction })
      continue
    }
    const message: ModelMessage = entry.message
    if (message.role === 'tool') {
      const answered = new Set(message.content.map((part) => part.toolCallId))
      open = open.filter((call) => !answered.has(call.callId))
    } else close()
    entries.push({ kind: 'message', message })
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') open.push({ callId: part.toolCallId, toolName: part.toolName })
    }
  }
  close()
  return { entries, notRun }
}

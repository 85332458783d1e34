// A chat's messages for a page (re)load, rebuilt from the durable store: each run's user input, and its assistant
// message replayed from the run's event log through the same UI stream mapping the live answer used.
import type { AgentEvent, AgentRuntime, JsonValue, RunRecord } from '@spindle/core'
import { toUIMessageStream } from '@spindle/ai-sdk'
import { readUIMessageStream, type UIMessage } from 'ai'

/**
 * The chat's UI messages, oldest first. A run still going is left out of the answer side: `useChat`'s resume
 * (`GET /api/chat/:id/stream`) replays it from its log, then follows it live.
 *
 * @example
 * const messages = await chatMessages(runtime, chatId) // what useChat({ messages }) starts from
 */
export async function chatMessages(runtime: AgentRuntime, sessionId: string): Promise<UIMessage[]> {
  const runs = (await runtime.runs.listRuns({ sessionId, limit: 200 })).reverse()
  const messages: UIMessage[] = []
  for (const run of runs) {
    const text = userText(run)
    if (text) messages.push({ id: `user-${run.id}`, role: 'user', parts: [{ type: 'text', text }] })
    if (isActive(run)) continue
    const answer = await replayedAnswer(runtime, run.id)
    if (answer) messages.push(answer)
  }
  return messages
}

/** Whether the run may still write events (its answer is resumed live, not listed). */
export function isActive(run: RunRecord): boolean {
  return run.status === 'running' || run.status === 'queued'
}

async function replayedAnswer(runtime: AgentRuntime, runId: string): Promise<UIMessage | undefined> {
  const events: AgentEvent[] = []
  for (let after = 0; ;) {
    const page = await runtime.runs.listEvents(runId, { after, limit: 500 })
    events.push(...page)
    if (page.length < 500) break
    after = page[page.length - 1]!.seq
  }
  let last: UIMessage | undefined
  const chunks = toUIMessageStream(fromArray(events)) as ReadableStream<never>
  for await (const message of readUIMessageStream({ stream: chunks })) last = message
  return last
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items
}

/** The text of the run's input (the user messages `fromUIMessages` made of the request). */
function userText(run: RunRecord): string {
  const input = run.request.input as JsonValue
  if (typeof input === 'string') return input
  if (!Array.isArray(input)) return ''
  return input
    .flatMap((message) => {
      const content = (message as { role?: string; content?: JsonValue }).content
      if (typeof content === 'string') return [content]
      return Array.isArray(content)
        ? content.flatMap((part) => ((part as { type?: string }).type === 'text' ? [String((part as { text?: string }).text)] : []))
        : []
    })
    .join('\n')
}

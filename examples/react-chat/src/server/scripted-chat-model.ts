// The example's model: scripted and offline, so the chat runs without an API key and every answer is the same.
// It reads the conversation (not a turn counter), so a run resumed after an approval or a restart picks up the script.
import { mockModel, type LanguageModel, type ModelMessage, type MockTurn, type ModelRequest, type ToolResultPart } from '@spindle/core'

export interface ScriptedChatModelOptions {
  /** Delay per streamed text chunk (default 40 ms), so streaming is visible. */
  chunkDelayMs?: number
  /** Characters per text chunk (default 6). */
  chunkSize?: number
}

/** The answer to "tell me a story": long and slow enough to reload the page in the middle of it. */
export const storyText =
  'Once upon a time, a small runtime kept a careful journal. Every message it received, every tool it ran and every ' +
  'step it took went into the log before it moved on. One evening a reader closed the page in the middle of a sentence. ' +
  'When the page came back, the runtime read its journal and told the story again from the first word: not a word was ' +
  'lost and not a word came twice. The moral: write it down first.'

export const helpText =
  'Hello! I am a scripted model, offline and deterministic. Try "send an email to ada@example.com" (the email tool ' +
  'asks for your approval first) or "tell me a story" (a slow answer: reload the page in the middle of it).'

/**
 * A `mockModel` whose turns follow the last user message: an email request calls `send_email` (which needs approval),
 * "story" streams a long story, anything else a short help text.
 *
 * @example
 * const agent = new Agent({ name: 'assistant', model: scriptedChatModel({ chunkDelayMs: 10 }) })
 */
export function scriptedChatModel(options: ScriptedChatModelOptions = {}): LanguageModel {
  const chunkDelayMs = options.chunkDelayMs ?? 40
  const chunkSize = options.chunkSize ?? 6
  const textTurn = (text: string): MockTurn => ({ text, chunkSize, delayMs: chunkDelayMs * Math.ceil(text.length / chunkSize) })
  return mockModel(
    (request: ModelRequest) => {
      const { text, results } = lastTurn(request.messages)
      if (results.length > 0) return textTurn(results.map(describeResult).join('\n'))
      const to = text.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/)?.[0]
      if (/\b(e-?mail|send)\b/i.test(text)) {
        const intro = 'I will send that email; the tool asks for your approval first.'
        return {
          ...textTurn(intro),
          toolCalls: [{ name: 'send_email', args: { to: to ?? 'ada@example.com', subject: 'Hello from Spindle', body: 'Sent from the react-chat example.' } }],
        }
      }
      return textTurn(/\b(story|long|slow)\b/i.test(text) ? storyText : helpText)
    },
    { provider: 'scripted', modelId: 'react-chat', capabilities: { contextWindow: 32_000, reasoning: false } },
  )
}

/** The last user message's text, and the tool results after it. */
function lastTurn(messages: ModelMessage[]): { text: string; results: ToolResultPart[] } {
  const index = messages.findLastIndex((message) => message.role === 'user')
  const user = messages[index]
  const text =
    user?.role !== 'user' ? '' : typeof user.content === 'string' ? user.content : user.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
  const results = messages.slice(index + 1).flatMap((message) => (message.role === 'tool' ? message.content : []))
  return { text, results }
}

function describeResult(part: ToolResultPart): string {
  const result = part.result as { to?: string; messageId?: string; error?: string } | undefined
  if (part.isError) return `I did not send the email: ${result?.error ?? 'the tool failed'}.`
  return `Done: the email to ${result?.to} is sent (message id ${result?.messageId}).`
}

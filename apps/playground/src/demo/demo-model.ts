// The demo model: deterministic and offline. It reads the last user message, calls the demo tools,
// then answers from their results, streaming its text in small chunks so the UI has something to show.
import { mockModel, type JsonValue, type MockTurn, type ModelMessage, type ModelRequest, type ToolResultPart } from '@spindle/core'

export const demoModelId = 'demo:scripted'
export const demoModelLabel = 'Demo model — scripted, offline'

export interface DemoModelOptions {
  /** Delay per streamed chunk (default 15 ms), so streaming is visible. */
  chunkDelayMs?: number
  /** Characters per text chunk (default 4). */
  chunkSize?: number
}

type ToolCall = { name: string; args: JsonValue }

const helpText =
  'Hello! I am the demo model: scripted and offline, so every answer is deterministic. Try: ' +
  '"what is 12 * (3 + 4)?", "save a note: buy bread", "list my notes", "list the files", "read todo.txt", ' +
  '"write hello.txt with Hello Spindle" or "delete todo.txt" (both ask for your approval), ' +
  '"run [1, 2, 3].map(x => x * 2)", or "tell me a long story" (a slow answer, to try reload, kill and resume).'

const story =
  'Once upon a time, a small runtime kept a careful journal. Every message it received, every tool it ran and every ' +
  'step it took went into the log before it moved on. One night the process was killed in the middle of a sentence. ' +
  'In the morning a new process read the journal, found the last snapshot, and carried on exactly where the old one ' +
  'had stopped: no tool ran twice, no message was lost, and the story reached its end. The moral: write it down first.'

export function demoModel(options: DemoModelOptions = {}) {
  const chunkDelayMs = options.chunkDelayMs ?? 15
  const chunkSize = options.chunkSize ?? 4
  const textTurn = (text: string, request: ModelRequest): MockTurn => ({
    text,
    chunkSize,
    delayMs: chunkDelayMs * Math.ceil(text.length / chunkSize),
    usage: { inputTokens: inputTokens(request), outputTokens: Math.ceil(text.length / 4) },
  })
  return mockModel(
    (request) => {
      const { text, results } = lastTurn(request.messages)
      if (results.length) return textTurn(answerFrom(results), request)
      const calls = plan(text)
      if (calls.length) return { toolCalls: calls, delayMs: chunkDelayMs * 4, usage: { inputTokens: inputTokens(request), outputTokens: 12 } }
      return textTurn(/story|slow|long/i.test(text) ? story : helpText, request)
    },
    { provider: 'demo', modelId: 'scripted', capabilities: { contextWindow: 32_000, reasoning: false } },
  )
}

/** The last user message's text, and the tool results that came after it. */
function lastTurn(messages: ModelMessage[]): { text: string; results: ToolResultPart[] } {
  const index = messages.findLastIndex((message) => message.role === 'user')
  const user = messages[index]
  const text =
    !user || user.role !== 'user'
      ? ''
      : typeof user.content === 'string'
        ? user.content
        : user.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
  const results = messages.slice(index + 1).flatMap((message) => (message.role === 'tool' ? message.content : []))
  return { text: text.trim(), results }
}

/** Which tool calls the message asks for (none: answer in text). */
export function plan(text: string): ToolCall[] {
  const lower = text.toLowerCase()
  const quoted = text.match(/["“']([^"”']+)["”']/)?.[1]
  const file = text.match(/([\w.-]+\.[a-z0-9]{1,5})\b/i)?.[1]
  const run = text.match(/^\s*run\s+(?:code\s*:?\s*)?([\s\S]+)$/i)
  if (run) return [{ name: 'run_code', args: { code: run[1]!.replace(/^`+|`+$/g, '') } }]
  // The multi-agent demo (demo-sub-agents.ts): a sub-run through a tool, and a handoff.
  const delegated = text.match(/^\s*(?:research|delegate|ask the researcher)\s*:?\s*([\s\S]+)$/i)?.[1]
  if (delegated) return [{ name: 'ask_researcher', args: { prompt: delegated.trim() } }]
  if (/\bhand (?:it |this |me )?over\b/.test(lower)) return [{ name: 'transfer_to_accountant', args: { reason: text.trim() } }]
  if (/\bruntime state\b|\bwho am i\b/.test(lower)) return [{ name: 'runtime_state', args: {} }]
  if (/\b(delete|remove)\b/.test(lower)) return [{ name: 'delete_file', args: { path: file ?? 'todo.txt' } }]
  if (/\b(write|create)\b/.test(lower)) {
    const content = quoted ?? text.match(/\bwith\s+([\s\S]+)$/i)?.[1] ?? 'Hello from Spindle!'
    return [{ name: 'write_file', args: { path: file ?? 'hello.txt', content: `${content}\n`, overwrite: true } }]
  }
  if (/\bnotes?\b|\bremember\b/.test(lower)) {
    const saved = text.match(/(?:note|remember)\s*(?:that|:)?\s*:?\s*([\s\S]+)$/i)?.[1]
    if (/\b(save|add|remember|take)\b/.test(lower) && saved) return [{ name: 'notes', args: { action: 'save', text: saved.trim() } }]
    return [{ name: 'notes', args: { action: 'list' } }]
  }
  if (/\bread\b|\bopen\b|\bshow\b.*\.\w+/.test(lower) && file) return [{ name: 'read_file', args: { path: file } }]
  if (/\b(list|show)\b.*\bfiles?\b|\bls\b/.test(lower)) return [{ name: 'list_files', args: { path: '.' } }]
  const expression = text.match(/[-(]*\d+(?:\.\d+)?(?:\s*[-+*/^%×÷]\s*[-(]*\d+(?:\.\d+)?\)*)+\)*/)?.[0]
  if (expression) return [{ name: 'calculator', args: { expression: expression.trim() } }]
  return []
}

/** A sentence per tool result. */
function answerFrom(results: ToolResultPart[]): string {
  return results.map(describe).join('\n')
}

function describe(part: ToolResultPart): string {
  const result = part.result as any
  if (part.isError) return `The tool ${part.toolName} did not run: ${result?.error ?? JSON.stringify(result)}`
  switch (part.toolName) {
    case 'calculator':
      return `${result.expression} = ${result.value}`
    case 'notes':
      if (result.saved) return `Saved note #${result.saved.id}: "${result.saved.text}". You have ${result.count} note(s).`
      return result.notes.length
        ? `Your notes:\n${result.notes.map((note: { id: number; text: string }) => `${note.id}. ${note.text}`).join('\n')}`
        : 'You have no notes yet.'
    case 'list_files':
      return `The sandbox holds: ${(result.entries ?? result.files ?? []).map((entry: { path?: string; name?: string }) => entry.path ?? entry.name).join(', ') || '(nothing)'}.`
    case 'read_file':
      return `${result.path ?? 'The file'} says:\n${String(result.content ?? '').slice(0, 600)}`
    case 'write_file':
      return `Wrote ${result.path ?? 'the file'} (${result.bytes ?? result.size ?? '?'} bytes).`
    case 'delete_file':
      return result.deleted ? `Deleted ${result.path}.` : `Nothing deleted: ${result.reason ?? 'no such file'}.`
    case 'runtime_state':
      return `The runtime state holds: ${
        Object.entries(result.values ?? {})
          .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
          .join(', ') || '(nothing)'
      }.`
    case 'run_code':
      return `The code returned ${JSON.stringify(result.result)}${result.logs?.length ? ` and printed:\n${result.logs.join('\n')}` : ''}.`
    default:
      return `${part.toolName} returned ${JSON.stringify(result)}.`
  }
}

function inputTokens(request: ModelRequest): number {
  return Math.ceil(JSON.stringify(request.messages).length / 4)
}

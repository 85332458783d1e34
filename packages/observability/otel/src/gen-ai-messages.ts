// Captured content in the shapes of the GenAI semantic conventions' JSON schemas (gen-ai-input-messages.json and
// gen-ai-output-messages.json): messages with a `role` and `parts`; output messages also carry a `finish_reason`.

/** A conventions message part: text, or any other typed part the schemas allow. */
export type GenAiPart = { type: 'text'; content: string } | { type: string; [key: string]: unknown }

/** The run's input as conventions input messages (a string is one user message with one text part). */
export function inputMessages(input: unknown): Array<{ role: string; parts: GenAiPart[] }> {
  if (typeof input === 'string') return [{ role: 'user', parts: [{ type: 'text', content: input }] }]
  if (Array.isArray(input)) return input.map((message) => toInputMessage(message))
  return [{ role: 'user', parts: [{ type: 'text', content: JSON.stringify(input) ?? '' }] }]
}

function toInputMessage(message: unknown): { role: string; parts: GenAiPart[] } {
  const record = (typeof message === 'object' && message !== null ? message : {}) as { role?: unknown; content?: unknown }
  const role = typeof record.role === 'string' ? record.role : 'user'
  if (typeof record.content === 'string') return { role, parts: [{ type: 'text', content: record.content }] }
  if (Array.isArray(record.content)) {
    return {
      role,
      parts: record.content.map((part: { type?: unknown; text?: unknown }) =>
        part?.type === 'text' && typeof part.text === 'string'
          ? { type: 'text', content: part.text }
          : { type: String(part?.type ?? 'unknown'), content: part },
      ),
    }
  }
  return { role, parts: [{ type: 'text', content: typeof message === 'string' ? message : (JSON.stringify(message) ?? '') }] }
}

/** The conventions' finish reasons (`stop`, `length`, `content_filter`, `tool_call`, `error`) for Spindle's. */
export function conventionFinishReason(reason: string): string {
  switch (reason) {
    case 'tool-calls':
      return 'tool_call'
    case 'content-filter':
      return 'content_filter'
    default:
      return reason
  }
}

/** One assistant output message with its text and finish reason. */
export function outputMessages(text: string, finishReason: string): Array<{ role: 'assistant'; parts: GenAiPart[]; finish_reason: string }> {
  return [{ role: 'assistant', parts: text ? [{ type: 'text', content: text }] : [], finish_reason: conventionFinishReason(finishReason) }]
}

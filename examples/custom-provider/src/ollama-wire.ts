// Ollama's /api/chat as a WireAdapter for @spindle/testing's provider conformance suite: renders neutral scenarios
// into the exact NDJSON lines and error bodies Ollama sends. Test support only (not exported from the package).
import type { FinishReasonCase, ScriptedResponse, WireAdapter, WireError, WireTurn } from '@spindle/testing'

const path = '/api/chat'
const createdAt = '2025-06-01T12:00:00.000000Z'

/** The NDJSON lines of a streamed turn: thinking, content, one line per tool call, then the `done: true` line. */
export function ollamaChatLines(turn: WireTurn): unknown[] {
  const model = turn.modelId ?? 'llama3.2'
  const line = (message: Record<string, unknown>) => ({ model, created_at: createdAt, message: { role: 'assistant', content: '', ...message }, done: false })
  const lines: unknown[] = []
  for (const thinking of turn.reasoning ?? []) lines.push(line({ thinking }))
  for (const content of turn.text ?? []) lines.push(line({ content }))
  for (const [index, call] of (turn.toolCalls ?? []).entries()) {
    // Ollama sends each call whole, its arguments as a JSON object.
    lines.push(line({ tool_calls: [{ id: call.id, function: { index, name: call.name, arguments: JSON.parse(call.argumentChunks.join('') || '{}') } }] }))
    if (turn.truncate === 'mid-tool-arguments') return lines
  }
  if (turn.truncate) return lines
  const usage = turn.usage ?? { inputTokens: 26, outputTokens: 12 }
  const finishReason = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop')
  const doneReason = turn.rawFinishReason ?? (finishReason === 'length' ? 'length' : 'stop')
  lines.push({
    model,
    created_at: createdAt,
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: doneReason,
    total_duration: 4_883_583_458,
    load_duration: 1_334_875,
    prompt_eval_count: usage.inputTokens,
    prompt_eval_duration: 342_546_000,
    eval_count: usage.outputTokens,
    eval_duration: 4_535_599_000,
  })
  return lines
}

function errorBody(error: WireError): string {
  // Ollama's own wording for an over-long prompt; other errors carry the scenario's message.
  return error.kind === 'context_overflow' ? 'the input length exceeds the context length' : error.message
}

const finishReasonCases: FinishReasonCase[] = [
  { name: 'stop', turn: { text: ['done'] }, expected: 'stop', raw: 'stop' },
  {
    name: 'stop with tool calls',
    turn: { toolCalls: [{ id: 'call_f', name: 'get_time', argumentChunks: ['{"zone":"UTC"}'] }] },
    expected: 'tool-calls',
    raw: 'stop',
  },
  { name: 'length', turn: { text: ['cut by num_predi'], finishReason: 'length' }, expected: 'length', raw: 'length' },
  { name: 'unload', turn: { text: [''], rawFinishReason: 'unload' }, expected: 'other', raw: 'unload' },
]

export const ollamaChatWire: WireAdapter = {
  protocol: 'ollama-chat',
  path,
  features: { reasoning: true, cachedInputTokens: false, reasoningTokens: false },
  streamTurn: (turn: WireTurn): ScriptedResponse => ({
    match: { method: 'POST', path },
    eventFormat: 'ndjson',
    events: ollamaChatLines(turn).map((data) => ({ data })),
  }),
  httpError: (error: WireError): ScriptedResponse => ({
    match: { method: 'POST', path },
    status: error.status,
    json: { error: errorBody(error) },
    headers: {
      ...(error.retryAfterSeconds !== undefined && { 'retry-after': String(error.retryAfterSeconds) }),
      ...(error.retryAfterMs !== undefined && { 'retry-after-ms': String(error.retryAfterMs) }),
    },
  }),
  inBandError: (before: WireTurn, error: WireError): ScriptedResponse => ({
    match: { method: 'POST', path },
    eventFormat: 'ndjson',
    events: [...ollamaChatLines({ ...before, truncate: 'before-finish' }), { error: errorBody(error) }].map((data) => ({ data })),
  }),
  finishReasonCases,
}

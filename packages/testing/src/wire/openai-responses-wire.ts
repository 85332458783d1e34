// The OpenAI Responses API wire (POST /v1/responses, stream: true): renders neutral turns into the exact
// SSE event sequence the API sends — response.created, output_item.added, output_text.delta,
// function_call_arguments.delta/done, reasoning_summary_text.delta, response.completed/incomplete, error.
import type { FinishReasonCase, WireAdapter, WireError, WireTurn } from '../provider-conformance/wire-adapter.js'
import { openaiErrorFields, openaiHttpError } from './openai-errors-wire.js'
import type { ScriptedResponse, SseEvent } from './sse-server.js'

const path = '/v1/responses'

/**
 * The SSE events of one Responses API stream for a neutral turn.
 *
 * @example
 * server.enqueue({ events: openaiResponsesEvents({ text: ['Hi'] }) })
 */
export function openaiResponsesEvents(turn: WireTurn): SseEvent[] {
  const events: SseEvent[] = []
  let sequence = 0
  const emit = (type: string, payload: Record<string, unknown>): void => {
    events.push({ event: type, data: { type, sequence_number: sequence++, ...payload } })
  }
  const responseId = turn.responseId ?? 'resp_0123456789'
  const model = turn.modelId ?? 'gpt-test-2025-01-01'
  const base = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: 'response',
    created_at: 1_750_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: null,
    metadata: {},
    ...extra,
  })
  const output: unknown[] = []
  let outputIndex = 0
  emit('response.created', { response: base('in_progress', []) })
  emit('response.in_progress', { response: base('in_progress', []) })

  if (turn.reasoning?.length) {
    const id = 'rs_0001'
    const index = outputIndex++
    emit('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [] } })
    emit('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } })
    for (const delta of turn.reasoning) emit('response.reasoning_summary_text.delta', { item_id: id, output_index: index, summary_index: 0, delta })
    const text = turn.reasoning.join('')
    emit('response.reasoning_summary_text.done', { item_id: id, output_index: index, summary_index: 0, text })
    emit('response.reasoning_summary_part.done', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text } })
    const item = { id, type: 'reasoning', summary: [{ type: 'summary_text', text }], encrypted_content: 'gAAAA-opaque-reasoning' }
    emit('response.output_item.done', { output_index: index, item })
    output.push(item)
  }

  if (turn.text?.length) {
    const id = 'msg_0001'
    const index = outputIndex++
    emit('response.output_item.added', { output_index: index, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } })
    emit('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } })
    for (const delta of turn.text) emit('response.output_text.delta', { item_id: id, output_index: index, content_index: 0, delta, logprobs: [] })
    const text = turn.text.join('')
    if (turn.truncate === 'before-finish' && !turn.toolCalls?.length) return events
    emit('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] })
    const part = { type: 'output_text', text, annotations: [] }
    emit('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part })
    const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] }
    emit('response.output_item.done', { output_index: index, item })
    output.push(item)
  }

  const calls = (turn.toolCalls ?? []).map((call, position) => ({ call, itemId: `fc_${position + 1}`, index: outputIndex++ }))
  const added = (entry: (typeof calls)[number]) =>
    emit('response.output_item.added', {
      output_index: entry.index,
      item: { id: entry.itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: entry.call.id, name: entry.call.name },
    })
  const delta = (entry: (typeof calls)[number], chunk: string) =>
    emit('response.function_call_arguments.delta', { item_id: entry.itemId, output_index: entry.index, delta: chunk })
  const done = (entry: (typeof calls)[number]) => {
    const args = entry.call.argumentChunks.join('')
    emit('response.function_call_arguments.done', { item_id: entry.itemId, output_index: entry.index, name: entry.call.name, arguments: args })
    const item = { id: entry.itemId, type: 'function_call', status: 'completed', arguments: args, call_id: entry.call.id, name: entry.call.name }
    emit('response.output_item.done', { output_index: entry.index, item })
    output.push(item)
  }
  if (turn.interleaveToolCalls) {
    for (const entry of calls) added(entry)
    const longest = Math.max(0, ...calls.map((entry) => entry.call.argumentChunks.length))
    for (let chunk = 0; chunk < longest; chunk++) {
      for (const entry of calls) {
        const piece = entry.call.argumentChunks[chunk]
        if (piece !== undefined) delta(entry, piece)
        if (turn.truncate === 'mid-tool-arguments') return events
      }
    }
    for (const entry of calls) done(entry)
  } else {
    for (const entry of calls) {
      added(entry)
      for (const piece of entry.call.argumentChunks) {
        delta(entry, piece)
        if (turn.truncate === 'mid-tool-arguments') return events
      }
      done(entry)
    }
  }
  if (turn.truncate) return events

  const usage = turn.usage ?? { inputTokens: 12, outputTokens: 7 }
  const wireUsage = {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  }
  const finishReason = turn.finishReason ?? (calls.length ? 'tool-calls' : 'stop')
  if (finishReason === 'length' || finishReason === 'content-filter' || finishReason === 'other') {
    const reason = turn.rawFinishReason ?? (finishReason === 'length' ? 'max_output_tokens' : finishReason === 'content-filter' ? 'content_filter' : 'unknown')
    emit('response.incomplete', { response: base('incomplete', output, { incomplete_details: { reason }, usage: wireUsage }) })
  } else {
    emit('response.completed', { response: base('completed', output, { usage: wireUsage }) })
  }
  return events
}

const finishReasonCases: FinishReasonCase[] = [
  { name: 'completed', turn: { text: ['done'] }, expected: 'stop' },
  {
    name: 'completed with function calls',
    turn: { toolCalls: [{ id: 'call_f', name: 'get_time', argumentChunks: ['{"zone":"UTC"}'] }] },
    expected: 'tool-calls',
  },
  { name: 'incomplete: max_output_tokens', turn: { text: ['cut by the lim'], finishReason: 'length' }, expected: 'length', raw: 'max_output_tokens' },
  { name: 'incomplete: content_filter', turn: { text: ['filt'], finishReason: 'content-filter' }, expected: 'content-filter', raw: 'content_filter' },
]

/**
 * The OpenAI Responses API as a `WireAdapter` for the provider conformance suite.
 * An in-band error is the `error` event the API sends after HTTP 200; nothing terminal follows it.
 */
export const openaiResponsesWire: WireAdapter = {
  protocol: 'openai-responses',
  path,
  features: { reasoning: true },
  streamTurn(turn: WireTurn): ScriptedResponse {
    return { match: { method: 'POST', path }, headers: { 'x-request-id': 'req_stream' }, events: openaiResponsesEvents(turn) }
  },
  httpError: (error: WireError) => ({ match: { method: 'POST', path }, ...openaiHttpError(error) }),
  inBandError(before: WireTurn, error: WireError): ScriptedResponse {
    const events = openaiResponsesEvents({ ...before, truncate: 'before-finish' })
    const fields = openaiErrorFields(error)
    events.push({ event: 'error', data: { type: 'error', sequence_number: events.length, code: fields.code, message: error.message, param: fields.param } })
    return { match: { method: 'POST', path }, events }
  },
  finishReasonCases,
}

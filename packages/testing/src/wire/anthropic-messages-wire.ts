// The Anthropic Messages wire for the provider conformance suite: renders neutral scenarios
// into the exact SSE events and error bodies of `POST /v1/messages`.
import type { WireAdapter, WireError, WireErrorKind, WireFinishReason, WireTurn } from '../provider-conformance/wire-adapter.js'
import {
  anthropicErrorEvent,
  anthropicStreamEvents,
  type AnthropicErrorType,
  type AnthropicScriptedBlock,
  type AnthropicWireEvent,
} from './anthropic-events.js'
import { anthropicResponse } from './anthropic-messages-server.js'
import type { ScriptedResponse } from './sse-server.js'

const stopReasonOf: Record<WireFinishReason, string> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'refusal',
  other: 'pause_turn',
}

const errorTypeOf: Record<WireErrorKind, AnthropicErrorType> = {
  rate_limit: 'rate_limit_error',
  server: 'api_error',
  overloaded: 'overloaded_error',
  authentication: 'authentication_error',
  invalid_request: 'invalid_request_error',
  context_overflow: 'invalid_request_error',
}

/** The Anthropic Messages events of a neutral turn: thinking, text, then tool_use blocks. */
export function anthropicWireEvents(turn: WireTurn): AnthropicWireEvent[] {
  const blocks: AnthropicScriptedBlock[] = []
  if (turn.reasoning?.length) blocks.push({ type: 'thinking', thinking: turn.reasoning, signature: 'sig_conformance_reasoning' })
  if (turn.text?.length) blocks.push({ type: 'text', text: turn.text })
  for (const call of turn.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, inputChunks: call.argumentChunks })
  const usage = turn.usage
  const cached = usage?.cachedInputTokens ?? 0
  const finish = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop')
  let events = anthropicStreamEvents({
    ...(turn.responseId ? { id: turn.responseId } : {}),
    ...(turn.modelId ? { model: turn.modelId } : {}),
    blocks,
    stopReason: (turn.rawFinishReason ?? stopReasonOf[finish]) as never,
    ...(finish === 'stop' && turn.rawFinishReason === 'stop_sequence' ? { stopSequence: '###' } : {}),
    usage: usage
      ? {
          // Anthropic's input_tokens excludes cache reads; Spindle's inputTokens includes them.
          input_tokens: usage.inputTokens - cached,
          cache_read_input_tokens: cached,
          output_tokens: usage.outputTokens,
          ...(usage.reasoningTokens !== undefined ? { thinking_tokens: usage.reasoningTokens } : {}),
        }
      : undefined,
  })
  if (turn.interleaveToolCalls) events = interleaveToolBlocks(events, blocks)
  if (turn.truncate === 'before-finish') events = events.filter((event) => event.event !== 'message_delta' && event.event !== 'message_stop')
  if (turn.truncate === 'mid-tool-arguments') {
    const cut = events.findIndex((event) => {
      const data = event.data as { delta?: { type?: string; partial_json?: string } }
      return data.delta?.type === 'input_json_delta' && data.delta.partial_json !== ''
    })
    if (cut >= 0) events = events.slice(0, cut + 1)
  }
  return events
}

/**
 * Anthropic streams content blocks one after the other; the `index` on every event still lets a
 * client route deltas, so "interleaved" parallel calls are rendered as: every tool block starts,
 * their deltas alternate, then every block stops.
 */
function interleaveToolBlocks(events: AnthropicWireEvent[], blocks: AnthropicScriptedBlock[]): AnthropicWireEvent[] {
  const toolIndexes = new Set(blocks.flatMap((block, index) => (block.type === 'tool_use' ? [index] : [])))
  const indexOf = (event: AnthropicWireEvent) => (event.data as { index?: number }).index
  const isTool = (event: AnthropicWireEvent) => toolIndexes.has(indexOf(event) ?? -1)
  const firstTool = events.findIndex(isTool)
  if (firstTool < 0) return events
  const toolEvents = events.filter(isTool)
  const rest = events.filter((event) => !isTool(event))
  const starts = toolEvents.filter((event) => event.event === 'content_block_start')
  const stops = toolEvents.filter((event) => event.event === 'content_block_stop')
  const deltasByBlock = [...toolIndexes].map((index) => toolEvents.filter((event) => event.event === 'content_block_delta' && indexOf(event) === index))
  const alternated: AnthropicWireEvent[] = []
  for (let round = 0; deltasByBlock.some((deltas) => round < deltas.length); round++) {
    for (const deltas of deltasByBlock) if (round < deltas.length) alternated.push(deltas[round]!)
  }
  return [...rest.slice(0, firstTool), ...starts, ...alternated, ...stops, ...rest.slice(firstTool)]
}

function errorReply(error: WireError): ScriptedResponse {
  const response = anthropicResponse({
    kind: 'error',
    errorType: errorTypeOf[error.kind],
    status: error.status,
    message: error.message,
    ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  })
  if (error.retryAfterMs !== undefined) response.headers = { ...response.headers, 'retry-after-ms': String(error.retryAfterMs) }
  return response
}

/**
 * @example
 * describeLanguageModel('anthropic', { wire: anthropicMessagesWire, createModel: (context) => createAnthropic({ apiKey: context.apiKey, baseURL: context.baseURL }).messages(context.modelId) })
 */
export const anthropicMessagesWire: WireAdapter = {
  protocol: 'anthropic-messages',
  path: '/v1/messages',
  features: { reasoning: true },
  streamTurn: (turn) => anthropicResponse({ events: anthropicWireEvents(turn) }),
  httpError: errorReply,
  inBandError: (before, error) =>
    anthropicResponse({
      events: [...anthropicWireEvents({ ...before, truncate: 'before-finish' }), anthropicErrorEvent(errorTypeOf[error.kind], error.message)],
    }),
  finishReasonCases: [
    { name: 'end_turn', turn: { text: ['done'] }, expected: 'stop', raw: 'end_turn' },
    { name: 'stop_sequence', turn: { text: ['done'], rawFinishReason: 'stop_sequence' }, expected: 'stop', raw: 'stop_sequence' },
    {
      name: 'tool_use',
      turn: { toolCalls: [{ id: 'call_f', name: 'get_weather', argumentChunks: ['{"city":"Nice"}'] }] },
      expected: 'tool-calls',
      raw: 'tool_use',
    },
    { name: 'max_tokens', turn: { text: ['cut'], finishReason: 'length' }, expected: 'length', raw: 'max_tokens' },
    {
      name: 'model_context_window_exceeded',
      turn: { text: ['cut'], finishReason: 'length', rawFinishReason: 'model_context_window_exceeded' },
      expected: 'length',
      raw: 'model_context_window_exceeded',
    },
    { name: 'refusal', turn: { text: ['no'], finishReason: 'content-filter' }, expected: 'content-filter', raw: 'refusal' },
    { name: 'pause_turn', turn: { text: ['paused'], finishReason: 'other' }, expected: 'other', raw: 'pause_turn' },
  ],
}

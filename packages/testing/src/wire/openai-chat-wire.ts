// The OpenAI Chat Completions wire (POST /v1/chat/completions, stream: true): data-only SSE chunks,
// tool_calls deltas keyed by index, a finish_reason chunk, the usage chunk of
// stream_options.include_usage (empty choices), then `data: [DONE]`.
import type { FinishReasonCase, WireAdapter, WireError, WireTurn } from '../provider-conformance/wire-adapter.js'
import { openaiErrorFields, openaiHttpError } from './openai-errors-wire.js'
import type { ScriptedResponse, SseEvent } from './sse-server.js'

const path = '/v1/chat/completions'

/**
 * Options of `openaiChatEvents(turn, options)`: the field reasoning deltas are sent in, and whether a usage chunk
 * ends the stream.
 */
export interface OpenAIChatEventsOptions {
  /** The delta field reasoning is streamed in by OpenAI-compatible servers (default `reasoning_content`). */
  reasoningField?: 'reasoning_content' | 'reasoning'
  /** Send the usage chunk (what `stream_options.include_usage` asks for; default true). */
  includeUsage?: boolean
}

/**
 * The SSE events of one Chat Completions stream for a neutral turn.
 *
 * @example
 * server.enqueue({ events: openaiChatEvents({ text: ['Hi'] }) })
 */
export function openaiChatEvents(turn: WireTurn, options: OpenAIChatEventsOptions = {}): SseEvent[] {
  const events: SseEvent[] = []
  const id = turn.responseId ?? 'chatcmpl-0123456789'
  const model = turn.modelId ?? 'gpt-test-2025-01-01'
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    events.push({ data: { id, object: 'chat.completion.chunk', created: 1_750_000_000, model, system_fingerprint: 'fp_test', choices, usage: null, ...extra } })
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }])

  delta({ role: 'assistant', content: '', refusal: null })
  for (const piece of turn.reasoning ?? []) delta({ [options.reasoningField ?? 'reasoning_content']: piece })
  for (const piece of turn.text ?? []) delta({ content: piece })

  const calls = turn.toolCalls ?? []
  const start = (position: number) => {
    const call = calls[position]!
    delta({ tool_calls: [{ index: position, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] })
  }
  const argument = (position: number, piece: string) => delta({ tool_calls: [{ index: position, function: { arguments: piece } }] })
  if (turn.interleaveToolCalls) {
    calls.forEach((_, position) => start(position))
    const longest = Math.max(0, ...calls.map((call) => call.argumentChunks.length))
    for (let index = 0; index < longest; index++) {
      for (const [position, call] of calls.entries()) {
        const piece = call.argumentChunks[index]
        if (piece !== undefined) argument(position, piece)
        if (turn.truncate === 'mid-tool-arguments') return events
      }
    }
  } else {
    for (const [position, call] of calls.entries()) {
      start(position)
      for (const piece of call.argumentChunks) {
        argument(position, piece)
        if (turn.truncate === 'mid-tool-arguments') return events
      }
    }
  }
  if (turn.truncate) return events

  const finishReason = turn.finishReason ?? (calls.length ? 'tool-calls' : 'stop')
  const raw =
    turn.rawFinishReason ??
    { stop: 'stop', 'tool-calls': 'tool_calls', length: 'length', 'content-filter': 'content_filter', other: 'function_call' }[finishReason]
  delta({}, raw)
  if (options.includeUsage ?? true) {
    const usage = turn.usage ?? { inputTokens: 12, outputTokens: 7 }
    chunk([], {
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
        prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: usage.reasoningTokens ?? 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    })
  }
  events.push({ data: '[DONE]' })
  return events
}

const finishReasonCases: FinishReasonCase[] = [
  { name: 'stop', turn: { text: ['done'] }, expected: 'stop', raw: 'stop' },
  {
    name: 'tool_calls',
    turn: { toolCalls: [{ id: 'call_f', name: 'get_time', argumentChunks: ['{"zone":"UTC"}'] }] },
    expected: 'tool-calls',
    raw: 'tool_calls',
  },
  { name: 'length', turn: { text: ['cut by the lim'], finishReason: 'length' }, expected: 'length', raw: 'length' },
  { name: 'content_filter', turn: { text: ['filt'], finishReason: 'content-filter' }, expected: 'content-filter', raw: 'content_filter' },
  {
    name: 'function_call (legacy)',
    turn: { toolCalls: [{ id: 'call_g', name: 'get_time', argumentChunks: ['{"zone":"CET"}'] }], rawFinishReason: 'function_call' },
    expected: 'tool-calls',
    raw: 'function_call',
  },
]

/**
 * The OpenAI Chat Completions API as a `WireAdapter` for the provider conformance suite.
 * An in-band error is a `data: {"error": {...}}` chunk after HTTP 200, as OpenAI and compatible servers send it.
 */
export const openaiChatWire: WireAdapter = {
  protocol: 'openai-chat',
  path,
  features: { reasoning: true },
  streamTurn(turn: WireTurn): ScriptedResponse {
    return { match: { method: 'POST', path }, headers: { 'x-request-id': 'req_stream' }, events: openaiChatEvents(turn) }
  },
  httpError: (error: WireError) => ({ match: { method: 'POST', path }, ...openaiHttpError(error) }),
  inBandError(before: WireTurn, error: WireError): ScriptedResponse {
    const events = openaiChatEvents({ ...before, truncate: 'before-finish' })
    events.push({ data: { error: { message: error.message, ...openaiErrorFields(error) } } })
    return { match: { method: 'POST', path }, events }
  },
  finishReasonCases,
}

/**
 * An embeddings response body (`POST /v1/embeddings`).
 *
 * @example
 * server.enqueue(openaiEmbeddingsResponse([[0.1, 0.2], [0.3, 0.4]]))
 */
export function openaiEmbeddingsResponse(vectors: number[][], options: { model?: string; promptTokens?: number } = {}): ScriptedResponse {
  return {
    match: { method: 'POST', path: '/v1/embeddings' },
    json: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model: options.model ?? 'text-embedding-test',
      usage: { prompt_tokens: options.promptTokens ?? vectors.length, total_tokens: options.promptTokens ?? vectors.length },
    },
  }
}

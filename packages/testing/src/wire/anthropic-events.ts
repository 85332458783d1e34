// Builders for Anthropic Messages API wire events: the exact SSE event sequences and
// error bodies the real API sends, scripted per test for the loopback server.

/** One server-sent event: the SSE `event:` name and its JSON `data`. */
export interface AnthropicWireEvent {
  event: string
  /** Serialized as JSON; a string is sent verbatim (to script malformed data). */
  data: unknown
}

/** The `error.type` values of the Anthropic API, with the HTTP status each normally carries. */
export const anthropicErrorStatus = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
} as const

/**
 * An Anthropic API error type (`rate_limit_error`, `overloaded_error`…) the loopback server can answer with; its
 * HTTP status comes from `anthropicErrorStatus`.
 */
export type AnthropicErrorType = keyof typeof anthropicErrorStatus

/** Token usage as the Anthropic API reports it (snake_case), sent in `message_start` and `message_delta`. */
export interface AnthropicWireUsage {
  input_tokens?: number
  output_tokens?: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
  /** Sent as `output_tokens_details.thinking_tokens` in `message_delta`. */
  thinking_tokens?: number
}

/** Text given as an array is sent as exactly those deltas; a string is split every `chunkSize` characters. */
export type AnthropicScriptedBlock =
  | { type: 'text'; text: string | string[] }
  | { type: 'thinking'; thinking: string | string[]; signature: string }
  | { type: 'redacted_thinking'; data: string }
  /**
   * `input` is serialized to JSON; a string is sent verbatim as the partial JSON (to script invalid or
   * cut-off input); `inputChunks` gives the exact `partial_json` deltas instead.
   */
  | { type: 'tool_use'; id: string; name: string; input?: unknown; inputChunks?: string[] }

/** A `stop_reason` of the Anthropic Messages API, sent in the scripted turn's `message_delta`. */
export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded'

/** A whole assistant turn, rendered by {@link anthropicStreamEvents} into the real event sequence. */
export interface AnthropicScriptedTurn {
  id?: string
  model?: string
  blocks: AnthropicScriptedBlock[]
  stopReason?: AnthropicStopReason
  stopSequence?: string | null
  usage?: AnthropicWireUsage
  /** Characters per text / thinking / partial-JSON delta (default 8). */
  chunkSize?: number
  /** Emit a `ping` event after `message_start`, as the real API does (default true). */
  ping?: boolean
}

let messageCounter = 0

/** A `message_start` .. `message_stop` sequence for a scripted turn, as the real API streams it. */
export function anthropicStreamEvents(turn: AnthropicScriptedTurn): AnthropicWireEvent[] {
  const chunkSize = Math.max(1, turn.chunkSize ?? 8)
  const usage = turn.usage ?? {}
  const inputTokens = usage.input_tokens ?? 12
  const outputTokens = usage.output_tokens ?? 5
  const cacheRead = usage.cache_read_input_tokens ?? 0
  const cacheCreation = usage.cache_creation_input_tokens ?? 0
  const events: AnthropicWireEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: turn.id ?? `msg_loopback_${++messageCounter}`,
          type: 'message',
          role: 'assistant',
          model: turn.model ?? 'claude-sonnet-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: inputTokens,
            cache_creation_input_tokens: cacheCreation,
            cache_read_input_tokens: cacheRead,
            output_tokens: 1,
          },
        },
      },
    },
  ]
  if (turn.ping ?? true) events.push({ event: 'ping', data: { type: 'ping' } })
  turn.blocks.forEach((block, index) => events.push(...blockEvents(block, index, chunkSize)))
  const stopReason = turn.stopReason ?? (turn.blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn')
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: turn.stopSequence ?? null },
      usage: {
        input_tokens: inputTokens,
        cache_creation_input_tokens: cacheCreation,
        cache_read_input_tokens: cacheRead,
        output_tokens: outputTokens,
        ...(usage.thinking_tokens !== undefined ? { output_tokens_details: { thinking_tokens: usage.thinking_tokens } } : {}),
      },
    },
  })
  events.push({ event: 'message_stop', data: { type: 'message_stop' } })
  return events
}

function blockEvents(block: AnthropicScriptedBlock, index: number, chunkSize: number): AnthropicWireEvent[] {
  const start = (contentBlock: unknown): AnthropicWireEvent => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block: contentBlock },
  })
  const delta = (value: unknown): AnthropicWireEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: value },
  })
  const stop: AnthropicWireEvent = { event: 'content_block_stop', data: { type: 'content_block_stop', index } }
  switch (block.type) {
    case 'text':
      return [start({ type: 'text', text: '' }), ...pieces(block.text, chunkSize).map((text) => delta({ type: 'text_delta', text })), stop]
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        ...pieces(block.thinking, chunkSize).map((thinking) => delta({ type: 'thinking_delta', thinking })),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ]
    case 'redacted_thinking':
      return [start({ type: 'redacted_thinking', data: block.data }), stop]
    case 'tool_use': {
      const json = typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {})
      const partials = block.inputChunks ?? chunk(json, chunkSize)
      // The real API opens every tool_use block with an empty partial_json delta.
      return [
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} }),
        delta({ type: 'input_json_delta', partial_json: '' }),
        ...partials.map((partial) => delta({ type: 'input_json_delta', partial_json: partial })),
        stop,
      ]
    }
  }
}

/** The in-band `event: error` the API sends after HTTP 200 (e.g. `overloaded_error` mid-stream). */
export function anthropicErrorEvent(type: AnthropicErrorType, message?: string): AnthropicWireEvent {
  return { event: 'error', data: { type: 'error', error: { type, message: message ?? defaultMessage(type) } } }
}

/** The JSON body of a 4xx/5xx response. */
export function anthropicErrorBody(type: AnthropicErrorType, message?: string, requestId?: string): Record<string, unknown> {
  return { type: 'error', error: { type, message: message ?? defaultMessage(type) }, ...(requestId ? { request_id: requestId } : {}) }
}

function defaultMessage(type: AnthropicErrorType): string {
  switch (type) {
    case 'overloaded_error':
      return 'Overloaded'
    case 'rate_limit_error':
      return 'Number of request tokens has exceeded your per-minute rate limit'
    case 'authentication_error':
      return 'invalid x-api-key'
    case 'api_error':
      return 'Internal server error'
    default:
      return type.replace(/_/g, ' ')
  }
}

function pieces(text: string | string[], size: number): string[] {
  return Array.isArray(text) ? text : chunk(text, size)
}

function chunk(text: string, size: number): string[] {
  const chunks: string[] = []
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size))
  return chunks
}

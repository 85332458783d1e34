// Maps OpenAI Responses API stream events to Spindle StreamParts. Tool calls are keyed by item id
// (parallel calls may interleave) and end only at `response.output_item.done`, so arguments cut off
// mid-stream never produce a complete call.
import { StreamInterruptedError, type ModelFinishReason, type StreamPart, type Usage } from '@spindle/core'
import type { ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses'
import { inBandProviderError, type ErrorMappingContext } from '../errors/map-openai-error.js'
import type { StreamMapper } from '../streaming/stream-mapper.js'
import { encodeReasoningSignature } from './reasoning-signature.js'

interface OpenCall {
  callId: string
  argsSent: number
  ended: boolean
}

export class ResponsesStreamMapper implements StreamMapper<ResponseStreamEvent> {
  readonly #errors: ErrorMappingContext
  readonly #calls = new Map<string, OpenCall>()
  #finished = false
  #sawToolCall = false
  #refused = false
  #lastSummaryIndex = new Map<string, number>()

  constructor(errors: ErrorMappingContext) {
    this.#errors = errors
  }

  map(event: ResponseStreamEvent): StreamPart[] {
    switch (event.type) {
      case 'response.created':
        return [{ type: 'response-metadata', id: event.response.id, modelId: event.response.model }]
      case 'response.output_text.delta':
        return event.delta ? [{ type: 'text-delta', delta: event.delta }] : []
      case 'response.refusal.delta':
        this.#refused = true
        return event.delta ? [{ type: 'text-delta', delta: event.delta }] : []
      case 'response.reasoning_summary_text.delta': {
        // Separate summary parts of one reasoning item with a blank line.
        const previous = this.#lastSummaryIndex.get(event.item_id)
        this.#lastSummaryIndex.set(event.item_id, event.summary_index)
        const separator = previous !== undefined && previous !== event.summary_index ? '\n\n' : ''
        return [{ type: 'reasoning-delta', delta: separator + event.delta }]
      }
      case 'response.reasoning_text.delta':
        return [{ type: 'reasoning-delta', delta: event.delta }]
      case 'response.output_item.added': {
        const item = event.item
        if (item.type !== 'function_call') return []
        this.#sawToolCall = true
        const id = item.id ?? item.call_id
        this.#calls.set(id, { callId: item.call_id, argsSent: 0, ended: false })
        const parts: StreamPart[] = [{ type: 'tool-call-start', id: item.call_id, name: item.name }]
        if (item.arguments) parts.push(this.#argsDelta(id, item.arguments))
        return parts
      }
      case 'response.function_call_arguments.delta': {
        if (!this.#calls.has(event.item_id) || !event.delta) return []
        return [this.#argsDelta(event.item_id, event.delta)]
      }
      case 'response.function_call_arguments.done':
        return this.#completeArguments(event.item_id, event.arguments)
      case 'response.output_item.done': {
        const item = event.item
        if (item.type === 'reasoning' && item.encrypted_content) {
          return [{ type: 'reasoning-delta', delta: '', signature: encodeReasoningSignature(item.id, item.encrypted_content) }]
        }
        if (item.type !== 'function_call') return []
        const id = item.id ?? item.call_id
        const call = this.#calls.get(id)
        if (!call || call.ended) return []
        const parts = this.#completeArguments(id, item.arguments)
        call.ended = true
        parts.push({ type: 'tool-call-end', id: call.callId })
        return parts
      }
      case 'response.completed':
        return this.#finish(event.response.usage, this.#refused ? 'content-filter' : this.#sawToolCall ? 'tool-calls' : 'stop', undefined)
      case 'response.incomplete': {
        const reason = event.response.incomplete_details?.reason ?? undefined
        const finishReason: ModelFinishReason = reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other'
        return this.#finish(event.response.usage, finishReason, reason)
      }
      case 'response.failed': {
        const failure = event.response.error
        throw inBandProviderError(this.#errors, { code: failure?.code ?? 'response_failed', message: failure?.message ?? 'the response failed' })
      }
      case 'error':
        throw inBandProviderError(this.#errors, readErrorEvent(event))
      default:
        return []
    }
  }

  end(): StreamPart[] {
    if (this.#finished) return []
    const open = [...this.#calls.values()].filter((call) => !call.ended).map((call) => call.callId)
    throw new StreamInterruptedError(
      `[spindle/${this.#errors.provider}] the Responses stream ended before response.completed${open.length ? ` (tool call ${open.join(', ')} was cut off and is discarded)` : ''}; the answer is incomplete`,
      { provider: this.#errors.provider, attempts: this.#errors.attempts },
    )
  }

  #argsDelta(itemId: string, delta: string): StreamPart {
    const call = this.#calls.get(itemId)!
    call.argsSent += delta.length
    return { type: 'tool-call-delta', id: call.callId, argsDelta: delta }
  }

  /** Servers that send the arguments only in the `done` events still produce one delta. */
  #completeArguments(itemId: string, full: string | undefined): StreamPart[] {
    const call = this.#calls.get(itemId)
    if (!call || call.ended || !full || full.length <= call.argsSent) return []
    const rest = full.slice(call.argsSent)
    return [this.#argsDelta(itemId, rest)]
  }

  #finish(usage: ResponseUsage | null | undefined, finishReason: ModelFinishReason, raw: string | undefined): StreamPart[] {
    this.#finished = true
    const part: StreamPart = { type: 'finish', finishReason, ...(usage ? { usage: mapResponsesUsage(usage) } : {}), ...(raw ? { rawFinishReason: raw } : {}) }
    return [part]
  }
}

/** Maps Responses usage: input includes cached tokens, output includes reasoning tokens. */
export function mapResponsesUsage(usage: ResponseUsage): Usage {
  const cached = usage.input_tokens_details?.cached_tokens
  const reasoning = usage.output_tokens_details?.reasoning_tokens
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(cached ? { cachedInputTokens: cached } : {}),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
  }
}

/** The `error` event has `{ code, message }` at the top level; some servers nest them under `error`. */
function readErrorEvent(event: Extract<ResponseStreamEvent, { type: 'error' }>): { code?: string | null; type?: string | null; message?: string | null } {
  const nested = (event as unknown as { error?: { code?: string; type?: string; message?: string } }).error
  return { code: event.code ?? nested?.code ?? null, type: nested?.type ?? null, message: event.message ?? nested?.message ?? null }
}

// Maps Chat Completions chunks to Spindle StreamParts. Tool calls arrive as deltas keyed by `index`;
// they end only when a `finish_reason` arrives, so arguments cut off mid-stream never complete a call.
// The usage chunk (`stream_options.include_usage`) comes after the finish chunk with empty choices.
import { StreamInterruptedError, type ModelFinishReason, type StreamPart, type Usage } from '@spindle/core'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import type { CompletionUsage } from 'openai/resources/completions'
import type { ErrorMappingContext } from '../errors/map-openai-error.js'
import type { StreamMapper } from '../streaming/stream-mapper.js'

interface PendingCall {
  id: string | undefined
  name: string | undefined
  started: boolean
  /** Arguments received before the call could be announced (id and name unknown yet). */
  buffered: string
}

/** Delta fields OpenAI-compatible servers use for reasoning (DeepSeek, vLLM, Ollama, OpenRouter). */
interface ReasoningDelta {
  reasoning_content?: string | null
  reasoning?: string | null
}

export class ChatStreamMapper implements StreamMapper<ChatCompletionChunk> {
  readonly #errors: ErrorMappingContext
  readonly #calls = new Map<number, PendingCall>()
  /** Wire index → key in #calls, when a reused index started a new call. */
  readonly #keyByIndex = new Map<number, number>()
  #nextSyntheticKey = -1
  #metadataSent = false
  #refused = false
  #finishReason: string | undefined
  #usage: Usage | undefined

  constructor(errors: ErrorMappingContext) {
    this.#errors = errors
  }

  map(chunk: ChatCompletionChunk): StreamPart[] {
    const parts: StreamPart[] = []
    if (!this.#metadataSent && (chunk.id || chunk.model)) {
      this.#metadataSent = true
      parts.push({ type: 'response-metadata', ...(chunk.id ? { id: chunk.id } : {}), ...(chunk.model ? { modelId: chunk.model } : {}) })
    }
    if (chunk.usage) this.#usage = mapChatUsage(chunk.usage)
    const choice = chunk.choices?.[0]
    if (!choice) return parts
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ReasoningDelta
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (reasoning) parts.push({ type: 'reasoning-delta', delta: reasoning })
    if (delta.content) parts.push({ type: 'text-delta', delta: delta.content })
    if (delta.refusal) {
      this.#refused = true
      parts.push({ type: 'text-delta', delta: delta.refusal })
    }
    for (const toolDelta of delta.tool_calls ?? []) {
      let key = this.#keyByIndex.get(toolDelta.index) ?? toolDelta.index
      let call = this.#calls.get(key)
      // Some compatible servers send every parallel call at index 0: a new id there is a new call.
      if (call?.started && toolDelta.id && toolDelta.id !== call.id) {
        key = this.#nextSyntheticKey--
        this.#keyByIndex.set(toolDelta.index, key)
        call = undefined
      }
      if (!call) {
        call = { id: undefined, name: undefined, started: false, buffered: '' }
        this.#calls.set(key, call)
      }
      if (toolDelta.id && !call.started) call.id = toolDelta.id
      if (toolDelta.function?.name && !call.started) call.name = (call.name ?? '') + toolDelta.function.name
      const args = toolDelta.function?.arguments ?? ''
      if (!call.started && call.id && call.name) {
        call.started = true
        parts.push({ type: 'tool-call-start', id: call.id, name: call.name })
        if (call.buffered) parts.push({ type: 'tool-call-delta', id: call.id, argsDelta: call.buffered })
        call.buffered = ''
      }
      if (!args) continue
      if (call.started) parts.push({ type: 'tool-call-delta', id: call.id!, argsDelta: args })
      else call.buffered += args
    }
    if (choice.finish_reason && this.#finishReason === undefined) {
      this.#finishReason = choice.finish_reason
      for (const [index, call] of this.#calls) {
        if (!call.started) {
          // A server that never sent an id still gets a stable one.
          call.id ??= `call_${Math.abs(index)}`
          call.name ??= 'unknown'
          call.started = true
          parts.push({ type: 'tool-call-start', id: call.id, name: call.name })
          if (call.buffered) parts.push({ type: 'tool-call-delta', id: call.id, argsDelta: call.buffered })
        }
        parts.push({ type: 'tool-call-end', id: call.id! })
      }
    }
    return parts
  }

  end(): StreamPart[] {
    if (this.#finishReason === undefined) {
      const open = [...this.#calls.values()].map((call) => call.id ?? '(no id)')
      throw new StreamInterruptedError(
        `[spindle/${this.#errors.provider}] the chat completion stream ended without a finish_reason${open.length ? ` (tool call ${open.join(', ')} was cut off and is discarded)` : ''}; the answer is incomplete`,
        { provider: this.#errors.provider, attempts: this.#errors.attempts },
      )
    }
    const raw = this.#finishReason
    const mapped = mapChatFinishReason(raw, this.#calls.size > 0)
    // A refusal comes with a normal `stop`; like a Responses refusal, it finishes with content-filter.
    const finishReason = this.#refused && (mapped === 'stop' || mapped === 'tool-calls') ? 'content-filter' : mapped
    return [{ type: 'finish', finishReason, rawFinishReason: raw, ...(this.#usage ? { usage: this.#usage } : {}) }]
  }
}

export function mapChatFinishReason(raw: string, hadToolCalls: boolean): ModelFinishReason {
  switch (raw) {
    case 'stop':
      // Some compatible servers report `stop` after tool calls.
      return hadToolCalls ? 'tool-calls' : 'stop'
    case 'length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    case 'content_filter':
      return 'content-filter'
    default:
      return 'other'
  }
}

/** Maps Chat usage: prompt tokens include cached ones, completion tokens include reasoning. */
export function mapChatUsage(usage: CompletionUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens
  const reasoning = usage.completion_tokens_details?.reasoning_tokens
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    ...(cached ? { cachedInputTokens: cached } : {}),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    totalTokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  }
}

// One NDJSON line of Ollama's /api/chat stream → Spindle stream parts. Tool calls arrive whole (arguments as an
// object); they are started at once but ended only on the `done: true` line, so a cut stream never completes one.
import { ProviderError, type ModelFinishReason, type StreamPart } from '@spindle/core'
import { mapOllamaError } from './map-ollama-error.js'

interface OllamaChunk {
  model?: string
  message?: { content?: string; thinking?: string; tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }> }
  done?: boolean
  done_reason?: string
  prompt_eval_count?: number
  eval_count?: number
  error?: string
}

export class OllamaStreamMapper {
  /** True once the `done: true` line was mapped. */
  finished = false
  readonly #openCalls: string[] = []
  #metadataSent = false
  #callCount = 0

  constructor(private readonly secrets: string[]) {}

  *map(line: string): Generator<StreamPart> {
    let chunk: OllamaChunk
    try {
      chunk = JSON.parse(line) as OllamaChunk
    } catch (cause) {
      throw new ProviderError(`[spindle-provider-ollama] the stream sent a line that is not JSON: ${line.slice(0, 120)}`, {
        cause,
        provider: 'ollama',
        isRetryable: false,
      })
    }
    if (typeof chunk.error === 'string') throw mapOllamaError({ message: chunk.error, secrets: this.secrets })
    if (!this.#metadataSent && typeof chunk.model === 'string') {
      this.#metadataSent = true
      yield { type: 'response-metadata', modelId: chunk.model }
    }
    const message = chunk.message
    if (message?.thinking) yield { type: 'reasoning-delta', delta: message.thinking }
    if (message?.content) yield { type: 'text-delta', delta: message.content }
    for (const call of message?.tool_calls ?? []) {
      const id = call.id || `ollama_call_${++this.#callCount}`
      const args = call.function?.arguments ?? {}
      yield { type: 'tool-call-start', id, name: call.function?.name ?? '' }
      yield { type: 'tool-call-delta', id, argsDelta: typeof args === 'string' ? args : JSON.stringify(args) }
      this.#openCalls.push(id)
    }
    if (chunk.done !== true) return
    for (const id of this.#openCalls) yield { type: 'tool-call-end', id }
    const inputTokens = count(chunk.prompt_eval_count)
    const outputTokens = count(chunk.eval_count)
    this.finished = true
    yield {
      type: 'finish',
      finishReason: finishReason(chunk.done_reason, this.#openCalls.length > 0),
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      ...(chunk.done_reason !== undefined && { rawFinishReason: chunk.done_reason }),
    }
  }
}

/** Ollama reports `stop` even when the model called tools; `load`/`unload` are not generation endings. */
function finishReason(raw: string | undefined, hasToolCalls: boolean): ModelFinishReason {
  if (raw === 'length') return 'length'
  if (raw === undefined || raw === 'stop') return hasToolCalls ? 'tool-calls' : 'stop'
  return 'other'
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0
}

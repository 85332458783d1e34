// Anthropic stream events → Spindle StreamParts, one event at a time (state per content block index).
import type Anthropic from '@anthropic-ai/sdk'
import type { ModelFinishReason, StreamPart, Usage } from '@spindle/core'
import { mapStopReason } from './map-finish-reason.js'
import { UsageAccumulator } from './map-usage.js'

type StreamEvent = Anthropic.Messages.RawMessageStreamEvent

interface BlockState {
  kind: 'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'json_tool' | 'other'
  id?: string
  signature?: string
  argsSeen: boolean
}

export interface StreamMapperOptions {
  /** Name of the forced structured-output tool, whose input is streamed as text. */
  jsonToolName?: string
}

/**
 * Maps events in order. `finished` turns true on `message_stop`; a stream that ends before it is
 * interrupted, and the caller must not treat what it saw as a complete answer.
 */
export class AnthropicStreamMapper {
  readonly #blocks = new Map<number, BlockState>()
  readonly #usage = new UsageAccumulator()
  readonly #jsonToolName: string | undefined
  #stopReason: string | null = null
  #finished = false

  constructor(options: StreamMapperOptions = {}) {
    this.#jsonToolName = options.jsonToolName
  }

  get finished(): boolean {
    return this.#finished
  }

  /** Tool calls whose block started but never stopped (their input is cut off). */
  openToolCalls(): string[] {
    return [...this.#blocks.values()].filter((block) => block.kind === 'tool_use' && block.id !== undefined).map((block) => block.id!)
  }

  map(event: StreamEvent): StreamPart[] {
    switch (event.type) {
      case 'message_start':
        this.#usage.update(event.message.usage)
        return [{ type: 'response-metadata', id: event.message.id, modelId: event.message.model }]
      case 'content_block_start':
        return this.#startBlock(event.index, event.content_block)
      case 'content_block_delta':
        return this.#delta(event.index, event.delta)
      case 'content_block_stop':
        return this.#stopBlock(event.index)
      case 'message_delta':
        this.#stopReason = event.delta.stop_reason ?? this.#stopReason
        this.#usage.update(event.usage)
        return []
      case 'message_stop': {
        this.#finished = true
        let finishReason: ModelFinishReason = mapStopReason(this.#stopReason)
        if (this.#jsonToolName !== undefined && finishReason === 'tool-calls') finishReason = 'stop'
        return [{ type: 'finish', finishReason, usage: this.usage(), ...(this.#stopReason ? { rawFinishReason: this.#stopReason } : {}) }]
      }
      default:
        return []
    }
  }

  usage(): Usage {
    return this.#usage.toUsage()
  }

  #startBlock(index: number, block: Anthropic.Messages.RawContentBlockStartEvent['content_block']): StreamPart[] {
    switch (block.type) {
      case 'text':
        this.#blocks.set(index, { kind: 'text', argsSeen: false })
        return block.text ? [{ type: 'text-delta', delta: block.text }] : []
      case 'thinking':
        this.#blocks.set(index, { kind: 'thinking', argsSeen: false, ...(block.signature ? { signature: block.signature } : {}) })
        return block.thinking ? [{ type: 'reasoning-delta', delta: block.thinking }] : []
      case 'redacted_thinking':
        this.#blocks.set(index, { kind: 'redacted_thinking', argsSeen: false })
        return [{ type: 'reasoning-delta', delta: '', redacted: block.data }]
      case 'tool_use':
        if (block.name === this.#jsonToolName) {
          this.#blocks.set(index, { kind: 'json_tool', argsSeen: false })
          return []
        }
        this.#blocks.set(index, { kind: 'tool_use', id: block.id, argsSeen: false })
        return [{ type: 'tool-call-start', id: block.id, name: block.name }]
      default:
        // Server tools and their results are executed by Anthropic, not by the Spindle run loop.
        this.#blocks.set(index, { kind: 'other', argsSeen: false })
        return []
    }
  }

  #delta(index: number, delta: Anthropic.Messages.RawContentBlockDeltaEvent['delta']): StreamPart[] {
    const block = this.#blocks.get(index)
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [{ type: 'text-delta', delta: delta.text }] : []
      case 'thinking_delta':
        return delta.thinking ? [{ type: 'reasoning-delta', delta: delta.thinking }] : []
      case 'signature_delta':
        if (block) block.signature = (block.signature ?? '') + delta.signature
        return []
      case 'input_json_delta':
        if (!block || !delta.partial_json) return []
        block.argsSeen = true
        if (block.kind === 'json_tool') return [{ type: 'text-delta', delta: delta.partial_json }]
        if (block.kind !== 'tool_use') return []
        return [{ type: 'tool-call-delta', id: block.id!, argsDelta: delta.partial_json }]
      default:
        return []
    }
  }

  #stopBlock(index: number): StreamPart[] {
    const block = this.#blocks.get(index)
    if (!block) return []
    this.#blocks.delete(index)
    if (block.kind === 'thinking') return [{ type: 'reasoning-delta', delta: '', ...(block.signature ? { signature: block.signature } : {}) }]
    if (block.kind === 'json_tool' && !block.argsSeen) return [{ type: 'text-delta', delta: '{}' }]
    if (block.kind !== 'tool_use') return []
    // A tool without arguments streams no JSON; send the empty object so the call parses.
    const parts: StreamPart[] = block.argsSeen ? [] : [{ type: 'tool-call-delta', id: block.id!, argsDelta: '{}' }]
    parts.push({ type: 'tool-call-end', id: block.id! })
    return parts
  }
}

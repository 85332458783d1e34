// Maps an AI SDK model's stream parts (spec v3 or v2) to Spindle's StreamPart: text, reasoning with its signature,
// tool calls (start, argument deltas, end), response metadata, usage and the finish. A tool call's end is held
// back until the model's finish, so a stream cut mid-call never yields a complete call.
import type { ModelFinishReason, StreamPart, Usage } from '@spindle/core'
import type { SharedV3ProviderMetadata, SharedV3Warning } from '@ai-sdk/provider'
import { mapAiSdkError, type ErrorMappingContext } from '../errors/map-ai-sdk-error.js'
import type { AiSdkStreamPart } from './ai-sdk-types.js'
import { encodeReasoningMetadata, mergeMetadata } from './signature.js'
import { StreamInterruptedError } from '@spindle/core'

/** What the model reported besides the parts Spindle streams (for `onMetadata`). */
export interface AiSdkCallMetadata {
  /** Provider metadata of the finish (e.g. Anthropic's cache creation tokens, Google's grounding). */
  providerMetadata?: SharedV3ProviderMetadata
  /** Warnings the provider gave for the call (unsupported settings…). */
  warnings: unknown[]
  /** The provider's raw finish reason. */
  rawFinishReason?: string
}

interface ToolCallState {
  name: string
  argumentsText: string
}

export class AiSdkStreamMapper {
  readonly #errors: ErrorMappingContext
  readonly #calls = new Map<string, ToolCallState>()
  readonly #endedCalls: string[] = []
  readonly #reasoning = new Map<string, SharedV3ProviderMetadata | undefined>()
  #finished = false
  readonly metadata: AiSdkCallMetadata = { warnings: [] }

  constructor(errors: ErrorMappingContext) {
    this.#errors = errors
  }

  /** Parts for one AI SDK part; throws the mapped error for an `error` part. */
  map(part: AiSdkStreamPart, out: StreamPart[]): void {
    switch (part.type) {
      case 'text-delta':
        if (part.delta) out.push({ type: 'text-delta', delta: part.delta })
        return
      case 'reasoning-start':
        this.#reasoning.set(part.id, mergeMetadata(undefined, part.providerMetadata))
        return
      case 'reasoning-delta':
        this.#reasoning.set(part.id, mergeMetadata(this.#reasoning.get(part.id), part.providerMetadata))
        if (part.delta) out.push({ type: 'reasoning-delta', delta: part.delta })
        return
      case 'reasoning-end': {
        const metadata = mergeMetadata(this.#reasoning.get(part.id), part.providerMetadata)
        this.#reasoning.delete(part.id)
        if (metadata !== undefined && Object.keys(metadata).length > 0)
          out.push({ type: 'reasoning-delta', delta: '', signature: encodeReasoningMetadata(metadata) })
        return
      }
      case 'tool-input-start':
        if (part.providerExecuted) return
        if (!this.#calls.has(part.id)) {
          this.#calls.set(part.id, { name: part.toolName, argumentsText: '' })
          out.push({ type: 'tool-call-start', id: part.id, name: part.toolName })
        }
        return
      case 'tool-input-delta': {
        const call = this.#calls.get(part.id)
        if (call === undefined || !part.delta) return
        call.argumentsText += part.delta
        out.push({ type: 'tool-call-delta', id: part.id, argsDelta: part.delta })
        return
      }
      case 'tool-call': {
        if (part.providerExecuted) return
        let call = this.#calls.get(part.toolCallId)
        if (call === undefined) {
          call = { name: part.toolName, argumentsText: '' }
          this.#calls.set(part.toolCallId, call)
          out.push({ type: 'tool-call-start', id: part.toolCallId, name: part.toolName })
        }
        // A model that did not stream the input (or streamed none of it) gives it whole here.
        if (call.argumentsText === '' && part.input) {
          call.argumentsText = part.input
          out.push({ type: 'tool-call-delta', id: part.toolCallId, argsDelta: part.input })
        }
        if (!this.#endedCalls.includes(part.toolCallId)) this.#endedCalls.push(part.toolCallId)
        return
      }
      case 'response-metadata':
        if (part.id !== undefined || part.modelId !== undefined) {
          out.push({ type: 'response-metadata', ...(part.id !== undefined && { id: part.id }), ...(part.modelId !== undefined && { modelId: part.modelId }) })
        }
        return
      case 'stream-start':
        this.metadata.warnings.push(...(part.warnings as SharedV3Warning[]))
        return
      case 'error':
        throw mapAiSdkError(part.error, this.#errors, { midStream: true })
      case 'finish': {
        const { reason, raw } = finishReasonOf(part.finishReason)
        if (reason === 'error') {
          throw new StreamInterruptedError(
            `[spindle/ai-sdk] ${this.#errors.provider}: the model finished with an error and no error part; the answer is incomplete`,
            {
              provider: this.#errors.provider,
              attempts: this.#errors.attempts,
            },
          )
        }
        for (const id of this.#endedCalls) out.push({ type: 'tool-call-end', id })
        this.#endedCalls.length = 0
        this.#finished = true
        this.metadata.providerMetadata = part.providerMetadata
        if (raw !== undefined) this.metadata.rawFinishReason = raw
        out.push({ type: 'finish', finishReason: reason, usage: usageOf(part.usage), ...(raw !== undefined && { rawFinishReason: raw }) })
        return
      }
      default:
        // text-start/end, tool-input-end (the `tool-call` part closes a call), files, sources, raw chunks and
        // provider-executed tool results have no Spindle part.
        return
    }
  }

  /** Called when the model's stream ended: a stream without its finish is an interrupted answer. */
  end(): void {
    if (!this.#finished) {
      throw new StreamInterruptedError(
        `[spindle/ai-sdk] ${this.#errors.provider}: the stream ended before its finish; the answer is incomplete: retry the request`,
        {
          provider: this.#errors.provider,
          attempts: this.#errors.attempts,
        },
      )
    }
  }
}

type FinishReasonInput = string | { unified: string; raw: string | undefined }

const finishReasons: Record<string, ModelFinishReason> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content-filter',
  'tool-calls': 'tool-calls',
  error: 'error',
  other: 'other',
  unknown: 'other',
}

/**
 * Raw reasons whose AI SDK mapping would end a Spindle run too early: Anthropic's `pause_turn` (a server tool paused
 * the turn; the model must be called again) maps to `stop` in `@ai-sdk/anthropic`, to `other` here.
 */
const rawOverrides: Record<string, ModelFinishReason> = { pause_turn: 'other' }

/** v3 reports `{ unified, raw }`, v2 a string (`unknown` included). */
export function finishReasonOf(input: FinishReasonInput): { reason: ModelFinishReason; raw: string | undefined } {
  if (typeof input === 'string') return { reason: finishReasons[input] ?? 'other', raw: undefined }
  const override = input.raw !== undefined ? rawOverrides[input.raw] : undefined
  return { reason: override ?? finishReasons[input.unified] ?? 'other', raw: input.raw }
}

type UsageInput =
  | { inputTokens: { total?: number; cacheRead?: number }; outputTokens: { total?: number; reasoning?: number } }
  | { inputTokens?: number; outputTokens?: number; totalTokens?: number; reasoningTokens?: number; cachedInputTokens?: number }

/** Spindle usage from v3's nested counts or v2's flat ones; `inputTokens` counts cached tokens too, as in both. */
export function usageOf(usage: UsageInput | undefined): Usage {
  if (usage === undefined) return { inputTokens: 0, outputTokens: 0 }
  let input: number | undefined
  let output: number | undefined
  let cached: number | undefined
  let reasoning: number | undefined
  if (typeof usage.inputTokens === 'object' && usage.inputTokens !== null) {
    const nested = usage as Extract<UsageInput, { inputTokens: object }>
    input = nested.inputTokens.total
    cached = nested.inputTokens.cacheRead
    output = nested.outputTokens.total
    reasoning = nested.outputTokens.reasoning
  } else {
    const flat = usage as Exclude<UsageInput, { inputTokens: object }>
    input = flat.inputTokens
    output = flat.outputTokens
    cached = flat.cachedInputTokens
    reasoning = flat.reasoningTokens
  }
  const result: Usage = { inputTokens: input ?? 0, outputTokens: output ?? 0, totalTokens: (input ?? 0) + (output ?? 0) }
  if (cached !== undefined) result.cachedInputTokens = cached
  if (reasoning !== undefined) result.reasoningTokens = reasoning
  return result
}

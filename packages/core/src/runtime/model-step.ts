// One model call: stream the parts, emit events, assemble the assistant message; retry retryable
// failures that happen before any output.
import { AbortedError, ProviderError, StreamInterruptedError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { JsonValue } from '../spec/json.js'
import type { LanguageModel, ModelFinishReason, ModelRequest } from '../spec/language-model.js'
import type { AssistantMessage, Usage } from '../spec/messages.js'
import type { PendingCall } from './run-state.js'
import { isAborted } from './is-aborted.js'
import { sizedArray } from './sized-array.js'

export interface ModelStepResult {
  message: AssistantMessage
  text: string
  toolCalls: PendingCall[]
  finishReason: ModelFinishReason
  usage: Usage | undefined
}

export interface ModelStepOptions {
  step: number
  signal: AbortSignal
  policy: RuntimePolicy
  emit(payload: AgentEventPayload | AgentEvent): void
  /** Emits a text or reasoning delta (the hot path of a stream). */
  emitDelta?(type: 'text.delta' | 'reasoning.delta', step: number, delta: string): void
  /** Back-pressure from a slow `stream()` consumer. */
  pressure(): Promise<void> | undefined
}

/**
 * One model call: stream the parts into the assistant message. A retryable failure before any output is retried
 * with backoff (`policy.modelRetry`).
 */
export function callModel(model: LanguageModel, request: ModelRequest, options: ModelStepOptions): Promise<ModelStepResult> {
  return streamOnce(model, request, options, 0)
}

/** After a failed attempt: the next one after a backoff, or the error when it is not retryable, output was produced, or retries are spent. */
async function retryOrThrow(model: LanguageModel, request: ModelRequest, options: ModelStepOptions, attempt: number, error: unknown, produced: boolean): Promise<ModelStepResult> {
  if (isAborted(options.signal)) throw options.signal.reason ?? new AbortedError()
  const { maxRetries, initialDelayMs, maxDelayMs } = options.policy.modelRetry
  const retryable = SpindleError.isInstance(error) ? error.isRetryable : false
  if (!retryable || produced || attempt >= maxRetries) throw error
  const hinted = error instanceof ProviderError ? error.retryAfterMs : undefined
  const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** attempt)
  await sleep(hinted ?? backoff * (0.5 + Math.random() / 2), options.signal)
  return streamOnce(model, request, options, attempt + 1)
}

interface StreamedCall {
  id: string
  name: string
  args: string
  ended: boolean
}

function indexOfCall(calls: StreamedCall[], id: string): number {
  for (let index = calls.length - 1; index >= 0; index--) if (calls[index]!.id === id) return index
  return -1
}

async function streamOnce(
  model: LanguageModel,
  request: ModelRequest,
  options: ModelStepOptions,
  attempt: number,
): Promise<ModelStepResult> {
  // One async frame per call: the retry decision runs only after a failure (a wrapper with the retry loop used to
  // cost every call a second frame and promise).
  let produced = false
  try {
    const { step, emit } = options
    const emitDelta = options.emitDelta ?? ((type: 'text.delta' | 'reasoning.delta', at: number, delta: string) => emit({ type, step: at, delta } as AgentEventPayload))
    let text = ''
    let reasoning = ''
    let signature: string | undefined
    let redacted: string | undefined
    let finishReason: ModelFinishReason | undefined
    let usage: Usage | undefined
    // Tool calls in the order they started (a handful per answer: a list searched from its end costs less than a
    // Map). Created with its first call: an empty array grown by push reserves 17 slots.
    let calls: StreamedCall[] | undefined
    for await (const part of model.stream(request, { signal: options.signal })) {
      switch (part.type) {
        case 'text-delta':
          if (!part.delta) break
          produced = true
          text += part.delta
          emitDelta('text.delta', step, part.delta)
          break
        case 'reasoning-delta':
          produced = true
          reasoning += part.delta
          if (part.signature) signature = part.signature
          if (part.redacted) redacted = part.redacted
          if (part.delta) emitDelta('reasoning.delta', step, part.delta)
          break
        case 'tool-call-start': {
          produced = true
          const started: StreamedCall = { id: part.id, name: part.name, args: '', ended: false }
          if (calls === undefined) {
            calls = [started]
            break
          }
          const index = indexOfCall(calls, part.id)
          if (index < 0) calls.push(started)
          else calls[index] = started
          break
        }
        case 'tool-call-delta': {
          const call = calls?.[indexOfCall(calls, part.id)]
          if (call) call.args += part.argsDelta
          break
        }
        case 'tool-call-end': {
          const call = calls?.[indexOfCall(calls, part.id)]
          if (call) call.ended = true
          break
        }
        case 'usage':
          usage = part.usage
          break
        case 'finish':
          finishReason = part.finishReason
          if (part.usage) usage = part.usage
          break
        case 'error':
          throw part.error instanceof Error ? part.error : new ProviderError(`[spindle/core] the model stream reported an error: ${String(part.error)}`)
        default:
          break
      }
      const pressure = options.pressure()
      if (pressure) await pressure
    }
    if (isAborted(options.signal)) throw options.signal.reason ?? new AbortedError()
    if (finishReason === undefined) {
      throw new StreamInterruptedError(`[spindle/core] the stream of ${model.provider}:${model.modelId} ended without a finish part`, { provider: model.provider })
    }
    // Both arrays sized once.
    const callCount = calls === undefined ? 0 : calls.length
    const toolCalls: PendingCall[] = sizedArray(callCount)
    const hasReasoning = reasoning !== '' || signature !== undefined || redacted !== undefined
    const content: AssistantMessage['content'] = sizedArray((hasReasoning ? 1 : 0) + (text ? 1 : 0) + callCount)
    let at = 0
    if (hasReasoning) {
      content[at++] = { type: 'reasoning', text: reasoning, ...(signature ? { signature } : {}), ...(redacted ? { redacted } : {}) }
    }
    if (text) content[at++] = { type: 'text', text }
    for (let index = 0; index < callCount; index++) {
      const call = calls![index]!
      const callId = call.id
      if (!call.ended) {
        throw new StreamInterruptedError(`[spindle/core] tool call ${callId} (${call.name}) of ${model.provider}:${model.modelId} was cut off; it is not executed`)
      }
      let pending: PendingCall
      try {
        pending = { callId, toolName: call.name, args: JSON.parse(call.args.trim() === '' ? '{}' : call.args) as JsonValue }
      } catch (error) {
        pending = { callId, toolName: call.name, args: call.args, argsError: (error as Error).message }
      }
      toolCalls[index] = pending
      content[at++] = { type: 'tool-call', toolCallId: callId, toolName: call.name, args: pending.args }
      emit({ type: 'tool.call', step, callId, toolName: call.name, args: pending.args, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    }
    return { message: { role: 'assistant', content }, text, toolCalls, finishReason, usage }

  } catch (error) {
    return retryOrThrow(model, request, options, attempt, error, produced)
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

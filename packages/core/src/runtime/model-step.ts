// One model call: stream the parts, emit events, assemble the assistant message; retry retryable
// failures that happen before any output.
import { AbortedError, ProviderError, StreamInterruptedError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { JsonValue } from '../spec/json.js'
import type { LanguageModel, ModelFinishReason, ModelRequest, ModelResponseInfo } from '../spec/language-model.js'
import type { AssistantMessage, Usage } from '../spec/messages.js'
import type { PendingCall } from './run-state.js'
import { isAborted } from '../util/is-aborted.js'
import { sizedArray } from '../util/sized-array.js'

export interface ModelStepResult {
  message: AssistantMessage
  text: string
  toolCalls: PendingCall[]
  finishReason: ModelFinishReason
  usage: Usage | undefined
  /** Who answered, when the provider said (its `response-metadata` parts, merged). */
  response?: ModelResponseInfo
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
async function retryOrThrow(
  model: LanguageModel,
  request: ModelRequest,
  options: ModelStepOptions,
  attempt: number,
  error: unknown,
  produced: boolean,
): Promise<ModelStepResult> {
  if (isAborted(options.signal)) throw options.signal.reason ?? new AbortedError()
  const { maxRetries, initialDelayMs, maxDelayMs } = options.policy.modelRetry
  const retryable = SpindleError.isInstance(error) ? error.isRetryable : false
  // A provider that retries by itself reports its requests: its retries are spent, and retrying here would multiply them.
  if (!retryable || produced || attempt >= maxRetries || retriedByProvider(error)) throw error
  const hinted = ProviderError.isInstance(error) ? error.retryAfterMs : undefined
  const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** attempt)
  await sleep(hinted ?? backoff * (0.5 + Math.random() / 2), options.signal)
  return streamOnce(model, request, options, attempt + 1)
}

function retriedByProvider(error: unknown): boolean {
  return typeof (error as { attempts?: unknown }).attempts === 'number'
}

const textSegment = 0
const reasoningSegment = 1
const callSegment = 2

/**
 * One block of the answer as it streamed: a run of text, one reasoning block, or one tool call. The blocks keep
 * their streamed order, which providers require for reasoning: Anthropic rejects thinking blocks that were
 * merged or moved relative to the tool calls between them, and each OpenAI reasoning item goes back as itself.
 * One literal shape for all three keeps the list monomorphic.
 */
interface Segment {
  readonly kind: typeof textSegment | typeof reasoningSegment | typeof callSegment
  /** Text, reasoning or (for a call) its arguments so far. */
  text: string
  /** A reasoning block is closed by its signature or redacted payload: the next reasoning starts another. */
  closed: boolean
  /** Deltas appended to a text block since its text was last flattened (see `appendText`). */
  unflattened: number
  signature: string | undefined
  redacted: string | undefined
  readonly id: string
  readonly name: string
}

/** A segment as one literal: a class instance's hidden class dies at a full GC between runs (util/fast-path.ts). */
function newSegment(kind: Segment['kind'], text: string, id = '', name = ''): Segment {
  return { kind, text, closed: false, unflattened: 0, signature: undefined, redacted: undefined, id, name }
}

/** Deltas after which a text block's text is flattened. */
const flattenEvery = 256

/**
 * Appends a delta to a text block. Each `+=` makes a cons string that lives until the answer ends: for a long
 * answer, thousands of them survived every young-generation collection of the step. Flattened every 256 deltas
 * (`| 0` makes V8 flatten a string in place, to read it as a number), the pieces die young instead; copying the
 * text that often costs little (a 30 KB answer of 10,000 deltas: 40 copies of at most 30 KB).
 */
function appendText(segment: Segment, delta: string): void {
  segment.text += delta
  if (++segment.unflattened === flattenEvery) {
    segment.unflattened = 0
    flatten(segment.text)
  }
}

function flatten(text: string): void {
  // The result is unused: the conversion is what flattens.
  void ((text as unknown as number) | 0)
}

function indexOfCall(segments: Segment[], id: string): number {
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index]!
    if (segment.kind === callSegment && segment.id === id) return index
  }
  return -1
}

/** Adds a reasoning delta: to the open reasoning block it continues, or as a new block. */
function addReasoning(segments: Segment[], part: { delta: string; signature?: string; redacted?: string }): void {
  const last = segments.length ? segments[segments.length - 1]! : undefined
  // A redacted payload is a block of its own (Anthropic's `redacted_thinking`); a signature ends the block it signs.
  const open =
    last !== undefined && last.kind === reasoningSegment && !last.closed && (!part.redacted || (last.text === '' && last.signature === undefined))
      ? last
      : undefined
  const segment = open ?? newSegment(reasoningSegment, '')
  if (open === undefined) segments.push(segment)
  segment.text += part.delta
  if (part.signature) {
    segment.signature = part.signature
    segment.closed = true
  }
  if (part.redacted) {
    segment.redacted = part.redacted
    segment.closed = true
  }
}

function reasoningPart(segment: Segment): AssistantMessage['content'][number] {
  const { text, signature, redacted } = segment
  if (signature !== undefined && redacted !== undefined) return { type: 'reasoning', text, signature, redacted }
  if (signature !== undefined) return { type: 'reasoning', text, signature }
  if (redacted !== undefined) return { type: 'reasoning', text, redacted }
  return { type: 'reasoning', text }
}

async function streamOnce(model: LanguageModel, request: ModelRequest, options: ModelStepOptions, attempt: number): Promise<ModelStepResult> {
  // One async frame per call: the retry decision runs only after a failure (a wrapper with the retry loop used to
  // cost every call a second frame and promise).
  let produced = false
  try {
    const { step, emit } = options
    const emitDelta =
      options.emitDelta ?? ((type: 'text.delta' | 'reasoning.delta', at: number, delta: string) => emit({ type, step: at, delta } as AgentEventPayload))
    let finishReason: ModelFinishReason | undefined
    let usage: Usage | undefined
    // The answer's blocks in streamed order (a handful per answer: a list searched from its end costs less than a
    // Map). Created with the first block: an empty array grown by push reserves 17 slots.
    let segments: Segment[] | undefined
    let callCount = 0
    let response: ModelResponseInfo | undefined
    for await (const part of model.stream(request, { signal: options.signal })) {
      switch (part.type) {
        case 'text-delta': {
          if (!part.delta) break
          produced = true
          const last = segments?.[segments.length - 1]
          if (last?.kind === textSegment) appendText(last, part.delta)
          else if (segments === undefined) segments = [newSegment(textSegment, part.delta)]
          else segments.push(newSegment(textSegment, part.delta))
          emitDelta('text.delta', step, part.delta)
          break
        }
        case 'reasoning-delta':
          produced = true
          if (!part.delta && !part.signature && !part.redacted) break
          addReasoning((segments ??= []), part)
          if (part.delta) emitDelta('reasoning.delta', step, part.delta)
          break
        case 'tool-call-start': {
          produced = true
          const started = newSegment(callSegment, '', part.id, part.name)
          if (segments === undefined) {
            segments = [started]
            callCount = 1
            break
          }
          const index = indexOfCall(segments, part.id)
          if (index < 0) {
            segments.push(started)
            callCount++
          } else segments[index] = started
          break
        }
        case 'tool-call-delta': {
          const call = segments?.[indexOfCall(segments, part.id)]
          if (call) call.text += part.argsDelta
          break
        }
        case 'tool-call-end': {
          const call = segments?.[indexOfCall(segments, part.id)]
          if (call) call.closed = true
          break
        }
        case 'usage':
          usage = part.usage
          break
        case 'response-metadata':
          response = mergeResponseInfo(response, part)
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
      if (pressure) {
        // A consumer that stops reading must not hold a cancel or the run's timeout: the wait ends on abort.
        await untilAborted(pressure, options.signal)
        if (isAborted(options.signal)) throw options.signal.reason ?? new AbortedError()
      }
    }
    if (isAborted(options.signal)) throw options.signal.reason ?? new AbortedError()
    if (finishReason === undefined) {
      throw new StreamInterruptedError(`[spindle/core] the stream of ${model.provider}:${model.modelId} ended without a finish part`, {
        provider: model.provider,
      })
    }
    // Both arrays sized once.
    const toolCalls: PendingCall[] = sizedArray(callCount)
    const blocks = segments === undefined ? 0 : segments.length
    const content: AssistantMessage['content'] = sizedArray(blocks)
    let callIndex = 0
    // The answer's text: its text blocks, joined (one in most answers).
    let text = ''
    for (let index = 0; index < blocks; index++) {
      const segment = segments![index]!
      if (segment.kind === textSegment) {
        content[index] = { type: 'text', text: segment.text }
        text = text ? text + segment.text : segment.text
        continue
      }
      if (segment.kind === reasoningSegment) {
        content[index] = reasoningPart(segment)
        continue
      }
      const callId = segment.id
      if (!segment.closed) {
        throw new StreamInterruptedError(
          `[spindle/core] tool call ${callId} (${segment.name}) of ${model.provider}:${model.modelId} was cut off; it is not executed`,
        )
      }
      let pending: PendingCall
      try {
        pending = { callId, toolName: segment.name, args: JSON.parse(segment.text.trim() === '' ? '{}' : segment.text) as JsonValue }
      } catch (error) {
        pending = { callId, toolName: segment.name, args: segment.text, argsError: (error as Error).message }
      }
      toolCalls[callIndex++] = pending
      content[index] = { type: 'tool-call', toolCallId: callId, toolName: segment.name, args: pending.args }
      emit({ type: 'tool.call', step, callId, toolName: segment.name, args: pending.args, runId: '', sessionId: '', seq: 0, timestamp: 0 })
    }
    const result: ModelStepResult = { message: { role: 'assistant', content }, text, toolCalls, finishReason, usage }
    if (response !== undefined) result.response = response
    return result
  } catch (error) {
    return retryOrThrow(model, request, options, attempt, error, produced)
  }
}

/** `response-metadata` parts add up: a later part's fields win, absent fields keep what an earlier part said. */
function mergeResponseInfo(into: ModelResponseInfo | undefined, part: ModelResponseInfo): ModelResponseInfo {
  const merged: ModelResponseInfo = { ...into }
  if (part.id !== undefined) merged.id = part.id
  if (part.provider !== undefined) merged.provider = part.provider
  if (part.modelId !== undefined) merged.modelId = part.modelId
  return merged
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

/**
 * `promise`, or a rejection with the signal's reason as soon as it aborts (whichever comes first): for work that
 * cannot be cancelled, only left (a DNS lookup, a third-party call without a signal). Without a signal, `promise`.
 *
 * @example
 * const addresses = await untilAborted(dns.lookup(host, { all: true }), ctx.signal)
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise
  if (signal.aborted) return Promise.reject(signal.reason ?? new AbortedError())
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new AbortedError())
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

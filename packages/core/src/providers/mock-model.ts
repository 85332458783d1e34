// mockModel: the scripted LanguageModel every test and example uses, streamed as real parts.
import { ProviderError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { JsonValue } from '../spec/json.js'
import type { LanguageModel, ModelCallOptions, ModelCapabilities, ModelFinishReason, ModelRequest, StreamPart } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'

export interface MockTurn {
  text?: string
  reasoning?: string
  toolCalls?: Array<{ name: string; args: JsonValue | string; id?: string }>
  finishReason?: ModelFinishReason
  usage?: Partial<Usage>
  /** Thrown (or, after some text, emitted as an error part) for this turn. */
  error?: unknown
  /** Waits before the first part (and between chunks, `delayMs / chunks`). */
  delayMs?: number
  /** Characters per text delta (default 8). */
  chunkSize?: number
}

export type MockScript = MockTurn[] | ((request: ModelRequest, index: number) => MockTurn | Promise<MockTurn>)

export interface MockModelOptions {
  provider?: string
  modelId?: string
  capabilities?: Partial<ModelCapabilities>
  /** Keep every request in `calls` (default true). Benchmarks turn it off: the kept requests would hold every context window. */
  recordCalls?: boolean
}

export interface MockModel extends LanguageModel {
  /** Every request received, in order. */
  readonly calls: ModelRequest[]
  /** Turns consumed so far. */
  readonly turnIndex: number
}

const defaultCapabilities: ModelCapabilities = {
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  tools: true,
  parallelTools: true,
  reasoning: true,
  structuredOutput: true,
}

/**
 * @example
 * const model = mockModel([
 *   { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
 *   { text: 'The sum is 3.' },
 * ])
 */
export function mockModel(script: MockScript, options: MockModelOptions = {}): MockModel {
  const calls: ModelRequest[] = []
  let index = 0
  const model: MockModel = {
    specificationVersion: 'v1',
    provider: options.provider ?? 'mock',
    modelId: options.modelId ?? 'mock-model',
    capabilities: { ...defaultCapabilities, ...options.capabilities },
    calls,
    get turnIndex() {
      return index
    },
    stream(request: ModelRequest, callOptions?: ModelCallOptions): AsyncIterable<StreamPart> {
      // One generator per call (no `yield*` into another one: each delegated part would cost a second promise).
      return streamTurn(async () => {
        const turnIndex = index++
        if (options.recordCalls !== false) calls.push(request)
        if (typeof script === 'function') return { turn: await script(request, turnIndex), turnIndex }
        const turn = script[turnIndex]
        if (!turn) {
          throw new SpindleError(
            'script_exhausted',
            `[spindle/core] mockModel: the script has ${script.length} turn(s) but turn index ${turnIndex} was requested. Add a turn or check why the run made another model call.`,
          )
        }
        return { turn, turnIndex }
      }, callOptions?.signal)
    },
  }
  return model
}

async function* streamTurn(next: () => Promise<{ turn: MockTurn; turnIndex: number }>, signal: AbortSignal | undefined): AsyncIterable<StreamPart> {
  const { turn, turnIndex } = await next()
  const chunkSize = Math.max(1, turn.chunkSize ?? 8)
  const textChunks = chunk(turn.text ?? '', chunkSize)
  const reasoningChunks = chunk(turn.reasoning ?? '', chunkSize)
  const toolCalls = turn.toolCalls ?? []
  const totalChunks = Math.max(1, textChunks.length + reasoningChunks.length + toolCalls.length)
  const perChunkDelay = turn.delayMs ? turn.delayMs / totalChunks : 0
  if (turn.delayMs) await sleep(perChunkDelay, signal)
  checkAbort(signal)
  if (turn.error !== undefined && !turn.text && !turn.reasoning && !toolCalls.length) throw toError(turn.error)
  for (const delta of reasoningChunks) {
    yield { type: 'reasoning-delta', delta }
    if (perChunkDelay) await sleep(perChunkDelay, signal)
    checkAbort(signal)
  }
  for (const delta of textChunks) {
    yield { type: 'text-delta', delta }
    if (perChunkDelay) await sleep(perChunkDelay, signal)
    checkAbort(signal)
  }
  if (turn.error !== undefined) {
    yield { type: 'error', error: toError(turn.error) }
    return
  }
  let callIndex = 0
  for (const call of toolCalls) {
    const id = call.id ?? `call_${turnIndex}_${callIndex++}`
    const argsText = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {})
    yield { type: 'tool-call-start', id, name: call.name }
    for (const argsDelta of chunk(argsText, 16)) yield { type: 'tool-call-delta', id, argsDelta }
    yield { type: 'tool-call-end', id }
    if (perChunkDelay) await sleep(perChunkDelay, signal)
    checkAbort(signal)
  }
  const usage: Usage = {
    inputTokens: turn.usage?.inputTokens ?? 10,
    outputTokens: turn.usage?.outputTokens ?? Math.max(1, Math.ceil(((turn.text?.length ?? 0) + (turn.reasoning?.length ?? 0)) / 4)),
    ...(turn.usage?.cachedInputTokens !== undefined ? { cachedInputTokens: turn.usage.cachedInputTokens } : {}),
    ...(turn.usage?.reasoningTokens !== undefined ? { reasoningTokens: turn.usage.reasoningTokens } : {}),
  }
  yield { type: 'finish', finishReason: turn.finishReason ?? (toolCalls.length ? 'tool-calls' : 'stop'), usage }
}

function chunk(text: string, size: number): string[] {
  const chunks: string[] = []
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size))
  return chunks
}

function toError(error: unknown): unknown {
  if (error instanceof Error) return error
  if (typeof error === 'object' && error !== null && 'status' in error) {
    const { status, message } = error as { status: number; message?: string }
    return new ProviderError(message ?? `mock provider error ${status}`, { status, provider: 'mock' })
  }
  return new ProviderError(String(error), { provider: 'mock' })
}

function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted')
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}



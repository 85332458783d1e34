// mockModel: the scripted LanguageModel every test and example uses, streamed as real parts.
import { ProviderError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { JsonValue } from '../spec/json.js'
import type { LanguageModel, ModelCallOptions, ModelCapabilities, ModelFinishReason, ModelRequest, StreamPart } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import { sizedArray } from '../util/sized-array.js'

/** One scripted model turn of `mockModel`: text, reasoning, tool calls, a finish reason, usage, an `error` to throw, or a `delayMs` before it streams. */
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

/** A `mockModel` script: the turns in order, or a function that picks each turn from the request. */
export type MockScript = MockTurn[] | ((request: ModelRequest, index: number) => MockTurn | Promise<MockTurn>)

/** The provider name, model id and capabilities a `mockModel` reports, and whether it records its requests in `calls`. */
export interface MockModelOptions {
  provider?: string
  modelId?: string
  capabilities?: Partial<ModelCapabilities>
  /** Keep every request in `calls` (default true). Benchmarks turn it off: the kept requests would hold every context window. */
  recordCalls?: boolean
}

/** A scripted `LanguageModel` for tests and offline demos; `calls` holds every request it received. */
export interface MockModel extends LanguageModel {
  /** Every request received, in order (each with a copy of its messages as they were when it was sent). */
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
      return new MockStream(loader, request, callOptions?.signal)
    },
  }
  // One loader per model (a closure per call would cost each call a context and a function).
  const loader: TurnLoader = {
    load(request: ModelRequest): LoadedTurn {
      const turnIndex = index++
      // A copy of the messages: the runtime appends the next step's messages to the array it sent.
      if (options.recordCalls !== false) calls.push({ ...request, messages: request.messages.slice() })
      if (typeof script === 'function') return { turn: script(request, turnIndex), turnIndex }
      const turn = script[turnIndex]
      if (!turn) {
        throw new SpindleError(
          'script_exhausted',
          `[spindle/core] mockModel: the script has ${script.length} turn(s) but turn index ${turnIndex} was requested. Add a turn or check why the run made another model call.`,
        )
      }
      return { turn, turnIndex }
    },
  }
  return model
}

/** A part, or `pause` between two parts: wait `delayMs / chunks` (when the turn has a delay), then stop if the call was aborted. */
const pause = null
type Item = StreamPart | typeof pause
type LoadedTurn = { turn: MockTurn | Promise<MockTurn>; turnIndex: number }
/** Takes a model's next turn for a request. */
interface TurnLoader {
  load(request: ModelRequest): LoadedTurn
}

/** Every ended stream's last read: one settled promise, shared (its result is frozen). */
const endOfStream: Promise<IteratorResult<StreamPart>> = Promise.resolve(Object.freeze({ value: undefined, done: true as const }))

/** The turn's parts in order, with a pause after each reasoning or text chunk and after each tool call. */
function turnItems(turn: MockTurn, turnIndex: number): { items: Item[]; chunks: number } {
  const chunkSize = Math.max(1, turn.chunkSize ?? 8)
  const text = turn.text ?? ''
  const reasoning = turn.reasoning ?? ''
  const toolCalls = turn.toolCalls ?? noCalls
  const textChunks = Math.ceil(text.length / chunkSize)
  const reasoningChunks = Math.ceil(reasoning.length / chunkSize)
  const chunks = textChunks + reasoningChunks + toolCalls.length
  const failing = turn.error !== undefined
  // Sized once: each text or reasoning chunk and its pause, each call's start, argument deltas, end and pause,
  // then the finish (or the error part, which ends the turn before any call).
  let size = 2 * (reasoningChunks + textChunks) + 1
  const argsTexts = failing ? noArgs : sizedArray<string>(toolCalls.length)
  for (let index = 0; index < argsTexts.length; index++) {
    const { args } = toolCalls[index]!
    const argsText = typeof args === 'string' ? args : JSON.stringify(args ?? {})
    argsTexts[index] = argsText
    size += 3 + Math.ceil(argsText.length / argsChunkSize)
  }
  const items = sizedArray<Item>(size)
  let at = 0
  for (let offset = 0; offset < reasoning.length; offset += chunkSize) {
    items[at++] = { type: 'reasoning-delta', delta: reasoning.slice(offset, offset + chunkSize) }
    items[at++] = pause
  }
  for (let offset = 0; offset < text.length; offset += chunkSize) {
    items[at++] = { type: 'text-delta', delta: text.slice(offset, offset + chunkSize) }
    items[at++] = pause
  }
  if (failing) {
    items[at] = { type: 'error', error: toError(turn.error) }
    return { items, chunks }
  }
  let callIndex = 0
  for (let index = 0; index < toolCalls.length; index++) {
    const call = toolCalls[index]!
    const id = call.id ?? `call_${turnIndex}_${callIndex++}`
    const argsText = argsTexts[index]!
    items[at++] = { type: 'tool-call-start', id, name: call.name }
    for (let offset = 0; offset < argsText.length; offset += argsChunkSize) {
      items[at++] = { type: 'tool-call-delta', id, argsDelta: argsText.slice(offset, offset + argsChunkSize) }
    }
    items[at++] = { type: 'tool-call-end', id }
    items[at++] = pause
  }
  const usage: Usage = {
    inputTokens: turn.usage?.inputTokens ?? 10,
    outputTokens: turn.usage?.outputTokens ?? Math.max(1, Math.ceil((text.length + reasoning.length) / 4)),
    ...(turn.usage?.cachedInputTokens !== undefined ? { cachedInputTokens: turn.usage.cachedInputTokens } : {}),
    ...(turn.usage?.reasoningTokens !== undefined ? { reasoningTokens: turn.usage.reasoningTokens } : {}),
    ...(turn.usage?.costUsd !== undefined ? { costUsd: turn.usage.costUsd } : {}),
  }
  items[at] = { type: 'finish', finishReason: turn.finishReason ?? (toolCalls.length ? 'tool-calls' : 'stop'), usage }
  return { items, chunks }
}

const argsChunkSize = 16
const noCalls: NonNullable<MockTurn['toolCalls']> = []
const noArgs: string[] = []

/**
 * One call's stream: the turn is taken from the script at the first `next()`, then its parts are handed out as
 * already-settled promises, one per part (an async generator costs several promises and a suspended frame per
 * part, which every benchmark of a loop over this model would count).
 */
class MockStream implements AsyncIterableIterator<StreamPart> {
  readonly #loader: TurnLoader
  /** The call's request, until its turn is loaded. */
  #request: ModelRequest | undefined
  readonly #signal: AbortSignal | undefined
  #items: Item[] | undefined
  #index = 0
  #delay = 0
  #finished = false
  #pending: Promise<IteratorResult<StreamPart>> | undefined

  constructor(loader: TurnLoader, request: ModelRequest, signal: AbortSignal | undefined) {
    this.#loader = loader
    this.#request = request
    this.#signal = signal
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<StreamPart>> {
    // A read requested while another waits (the protocol allows it) is served after it, whatever it settled to.
    if (this.#pending) {
      const read = (): Promise<IteratorResult<StreamPart>> => this.next()
      return this.#pending.then(read, read)
    }
    if (this.#finished) return endOfStream
    let loaded: LoadedTurn | undefined
    if (this.#items === undefined) {
      try {
        const request = this.#request!
        this.#request = undefined
        loaded = this.#loader.load(request)
        // A scripted turn without a delay starts here, synchronously; an asynchronous script or a delay waits.
        if (!isThenable(loaded.turn) && !loaded.turn.delayMs) this.#begin(loaded.turn, turnItems(loaded.turn, loaded.turnIndex))
      } catch (error) {
        this.#finished = true
        return Promise.reject(error)
      }
    }
    if (this.#items === undefined || this.#delay) {
      const pending = this.#nextAsync(loaded).finally(() => {
        if (this.#pending === pending) this.#pending = undefined
      })
      this.#pending = pending
      return pending
    }
    const items = this.#items
    for (;;) {
      const item = items[this.#index++]
      if (item === undefined) return this.#end()
      if (item !== pause) return Promise.resolve({ value: item, done: false })
      if (this.#signal?.aborted) {
        this.#finished = true
        return Promise.reject(this.#signal.reason ?? new Error('aborted'))
      }
    }
  }

  return(): Promise<IteratorResult<StreamPart>> {
    return this.#end()
  }

  #end(): Promise<IteratorResult<StreamPart>> {
    this.#finished = true
    return endOfStream
  }

  /** Takes the turn's parts; fails like the call would (aborted, or an error turn without output). */
  #begin(turn: MockTurn, { items, chunks }: { items: Item[]; chunks: number }): void {
    this.#delay = turn.delayMs ? turn.delayMs / Math.max(1, chunks) : 0
    checkAbort(this.#signal)
    if (turn.error !== undefined && !turn.text && !turn.reasoning && !turn.toolCalls?.length) throw toError(turn.error)
    this.#items = items
  }

  async #nextAsync(loaded: LoadedTurn | undefined): Promise<IteratorResult<StreamPart>> {
    try {
      if (this.#items === undefined && loaded !== undefined) {
        const turn = await loaded.turn
        const parts = turnItems(turn, loaded.turnIndex)
        if (turn.delayMs) await sleep(turn.delayMs / Math.max(1, parts.chunks), this.#signal)
        this.#begin(turn, parts)
      }
      if (this.#items === undefined) return this.#end()
      for (;;) {
        const item = this.#items[this.#index++]
        if (item === undefined) return this.#end()
        if (item !== pause) return { value: item, done: false }
        if (this.#delay) await sleep(this.#delay, this.#signal)
        checkAbort(this.#signal)
      }
    } catch (error) {
      this.#finished = true
      throw error
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
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

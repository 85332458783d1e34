// ContextPipeline: runs the ordered ContextAdapters before every step to build the model request.
import type { ModelRequest, ToolSpecification } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { ContextAdapter, ContextBuildInput, ContextDraft } from '../spec/context-adapter.js'
import { historyAdapter } from './builtin-adapters.js'
import { ContextAdapterError } from '../errors/context-adapter-error.js'
import { SpindleError } from '../errors/spindle-error.js'
import { countMessageTokens, estimateTokenizer, type Tokenizer } from './tokenizer.js'
import { asPromise } from '../util/as-promise.js'

/** The adapters a `ContextPipeline` runs, in order (re-read at every build), and its tokenizer. */
export interface ContextPipelineOptions {
  /**
   * Ordered adapters: any iterable, or a function returning the current list (a live view: either is re-read on
   * every build). A function hands over its array as it is, without an iteration per build.
   */
  adapters?: Iterable<ContextAdapter> | (() => readonly ContextAdapter[])
  tokenizer?: Tokenizer
}

/** The built request and its token count (messages and tool schemas). */
export interface BuiltContext {
  request: ModelRequest
  tokens: number
}

/** Builds each step's model request by running the context adapters in order over a draft (system sections, messages, tools). */
export class ContextPipeline {
  readonly tokenizer: Tokenizer
  readonly #adapters: Iterable<ContextAdapter> | (() => readonly ContextAdapter[])
  readonly #toolTokenCache = new WeakMap<ToolSpecification[], number>()
  readonly #specTokenCache = new WeakMap<ToolSpecification, number>()

  constructor(options: ContextPipelineOptions = {}) {
    this.tokenizer = options.tokenizer ?? estimateTokenizer
    this.#adapters = options.adapters ?? []
  }

  get adapters(): readonly ContextAdapter[] {
    return [...this.#list()]
  }

  /** The adapters of this build, in order (an array or a function's list as they are; another iterable copied). */
  #list(): readonly ContextAdapter[] {
    const adapters = this.#adapters
    return typeof adapters === 'function' ? adapters() : Array.isArray(adapters) ? adapters : [...adapters]
  }

  /**
   * Builds the request. `windowMessages` and `windowTokens` come from the session's ContextWindow, so the
   * history costs one array concat, not a re-read or a re-count.
   */
  build(input: ContextBuildInput, windowMessages: ModelMessage[], windowTokens: number): Promise<BuiltContext> {
    return asPromise(() => this.buildNow(input, windowMessages, windowTokens))
  }

  /**
   * `build()`, synchronous while every adapter's `apply` is (the built-in ones are): the request itself, or a
   * promise of it from the first adapter that returned one. A run builds a request per step without an async
   * round then. An adapter that throws synchronously throws here.
   */
  buildNow(input: ContextBuildInput, windowMessages: ModelMessage[], windowTokens: number): BuiltContext | Promise<BuiltContext> {
    // A copy, so an adapter that pushes a tool never grows the run's cached tool list step after step.
    const draft: ContextDraft = { system: [], messages: [], tools: [...input.tools] }
    const build: PendingBuild = { input, draft, beforeHistory: undefined, extraTokens: 0, windowMessages, windowTokens }
    const applying = this.#applyAdapters(this.#list(), 0, build)
    return applying === undefined ? this.#request(build) : applying.then(() => this.#request(build))
  }

  /**
   * Applies the adapters from `from` on, in order: undefined once all have applied synchronously, else a promise
   * that applies the rest after the first asynchronous one. `draft.messages` holds what adapters add; the
   * history window goes where the history adapter stands, so the history is never copied or re-counted here.
   */
  #applyAdapters(adapters: readonly ContextAdapter[], from: number, build: PendingBuild): Promise<void> | undefined {
    const { draft } = build
    for (let index = from; index < adapters.length; index++) {
      const adapter = adapters[index]!
      if (adapter === historyAdapter) {
        build.beforeHistory = draft.messages
        draft.messages = []
        continue
      }
      const before = draft.messages.length
      let applied: ReturnType<ContextAdapter['apply']>
      try {
        applied = adapter.apply(draft, build.input)
      } catch (error) {
        throw adapterFailure(adapter, error)
      }
      if (applied) {
        return applied.then(
          () => {
            this.#countAdded(build, before)
            return this.#applyAdapters(adapters, index + 1, build)
          },
          (error: unknown) => {
            throw adapterFailure(adapter, error)
          },
        )
      }
      this.#countAdded(build, before)
    }
    return undefined
  }

  /** Counts the messages an adapter added to the draft (from `before` on). */
  #countAdded(build: PendingBuild, before: number): void {
    const { messages } = build.draft
    for (let i = before; i < messages.length; i++) build.extraTokens += countMessageTokens(messages[i]!, this.tokenizer)
  }

  /** The request from the applied draft. */
  #request(build: PendingBuild): BuiltContext {
    const { draft, input, beforeHistory, windowMessages } = build
    const systemText = draft.system.join('\n\n')
    const messages = beforeHistory
      ? this.#assemble(windowMessages, systemText, beforeHistory, draft.messages)
      : this.#assemble(windowMessages, systemText, draft.messages, noMessages)
    // Unchanged tools keep the caller's array, whose token count is cached by identity.
    const tools = sameTools(draft.tools, input.tools) ? input.tools : draft.tools
    // Built whole, every field the run sets later included (a field added afterwards gives the request a map V8
    // drops at each major GC, and the hot caller's inline caches with it: see util/fast-path.ts).
    const request: ModelRequest = tools.length ? { messages, tools, maxOutputTokens: undefined } : { messages, maxOutputTokens: undefined }
    const tokens = build.windowTokens + build.extraTokens + (systemText ? this.#systemTokens(systemText) : 0) + this.#toolTokens(tools)
    return { request, tokens }
  }

  /** The last request's messages per history window (see `#assemble`). */
  readonly #assembled = new WeakMap<ModelMessage[], AssembledMessages>()

  /**
   * The request's messages: the system message, `before`, the history window, `after`. A run's window only grows
   * between two steps, so the previous step's array is reused: the adapters' messages after the window are cut
   * off, the window's new messages and the new `after` are pushed. Copying the whole history into a new array
   * every step made each step cost O(history) (16 KB of allocation per step at 2,000 messages). The array is
   * rebuilt when anything before the window's new tail changed: the system text, the messages before the
   * history, or the window itself (a compaction drops its head). This is why a model must read
   * `request.messages` during its call and copy it to keep it (see `ModelRequest`).
   */
  #assemble(window: ModelMessage[], system: string, before: ModelMessage[], after: ModelMessage[]): ModelMessage[] {
    const last = this.#assembled.get(window)
    if (last !== undefined && last.system === system && last.windowLength <= window.length && sameMessages(last.before, before)) {
      const { windowLength } = last
      if (windowLength === 0 || (window[0] === last.windowFirst && window[windowLength - 1] === last.windowLast)) {
        const { messages } = last
        messages.length = (system ? 1 : 0) + before.length + windowLength
        for (let index = windowLength; index < window.length; index++) messages.push(window[index]!)
        for (let index = 0; index < after.length; index++) messages.push(after[index]!)
        last.windowLength = window.length
        last.windowFirst = window[0]
        last.windowLast = window[window.length - 1]
        return messages
      }
    }
    const head: ModelMessage[] = system ? [{ role: 'system', content: system }] : []
    const messages = head.concat(before, window, after)
    this.#assembled.set(window, {
      messages,
      system,
      before: before.length ? before.slice() : noMessages,
      windowLength: window.length,
      windowFirst: window[0],
      windowLast: window[window.length - 1],
    })
    return messages
  }

  #lastSystem = ''
  #lastSystemTokens = 0

  /** The system text rarely changes between steps: its count is reused. */
  #systemTokens(text: string): number {
    if (text !== this.#lastSystem) {
      this.#lastSystem = text
      this.#lastSystemTokens = this.tokenizer.count(text) + 4
    }
    return this.#lastSystemTokens
  }

  /** Counted once per tool spec (specs are shared across runs), then summed per tool list (cached by identity). */
  #toolTokens(tools: ToolSpecification[]): number {
    if (!tools.length) return 0
    let cached = this.#toolTokenCache.get(tools)
    if (cached === undefined) {
      cached = 2
      for (const tool of tools) {
        let count = this.#specTokenCache.get(tool)
        if (count === undefined) this.#specTokenCache.set(tool, (count = this.tokenizer.count(JSON.stringify(tool)) + 1))
        cached += count
      }
      this.#toolTokenCache.set(tools, cached)
    }
    return cached
  }
}

/** One build in progress: the draft the adapters fill, and what the request is assembled from. */
interface PendingBuild {
  input: ContextBuildInput
  draft: ContextDraft
  /** What the adapters before the history adapter added (the draft's messages are then those after it). */
  beforeHistory: ModelMessage[] | undefined
  extraTokens: number
  windowMessages: ModelMessage[]
  windowTokens: number
}

/** What `#assemble` built last for a window, and from what. */
interface AssembledMessages {
  messages: ModelMessage[]
  system: string
  before: ModelMessage[]
  windowLength: number
  windowFirst: ModelMessage | undefined
  windowLast: ModelMessage | undefined
}

const noMessages: ModelMessage[] = []

function sameMessages(a: ModelMessage[], b: ModelMessage[]): boolean {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false
  return true
}

function sameTools(a: ToolSpecification[], b: ToolSpecification[]): boolean {
  if (a.length !== b.length) return false
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false
  return true
}

/** What a failing adapter threw, as a ContextAdapterError naming it (an abort passes through as it is). */
function adapterFailure(adapter: ContextAdapter, error: unknown): unknown {
  if (SpindleError.isInstance(error) && (error.code === 'aborted' || error.code === 'context_adapter')) return error
  return new ContextAdapterError(adapter.name || 'unnamed', error)
}

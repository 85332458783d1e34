// ContextPipeline: runs the ordered ContextAdapters before every step to build the model request.
import type { ModelRequest, ToolSpecification } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { ContextAdapter, ContextBuildInput, ContextDraft } from './context-adapter.js'
import { historyAdapter } from './builtin-adapters.js'
import { countMessageTokens, estimateTokenizer, type Tokenizer } from './tokenizer.js'

export interface ContextPipelineOptions {
  /** Ordered adapters; any iterable (a live view is re-read on every build). */
  adapters?: Iterable<ContextAdapter>
  tokenizer?: Tokenizer
}

/** The built request and its token count (messages and tool schemas). */
export interface BuiltContext {
  request: ModelRequest
  tokens: number
}

export class ContextPipeline {
  readonly tokenizer: Tokenizer
  readonly #adapters: Iterable<ContextAdapter>
  readonly #toolTokenCache = new WeakMap<ToolSpecification[], number>()
  readonly #specTokenCache = new WeakMap<ToolSpecification, number>()

  constructor(options: ContextPipelineOptions = {}) {
    this.tokenizer = options.tokenizer ?? estimateTokenizer
    this.#adapters = options.adapters ?? []
  }

  get adapters(): readonly ContextAdapter[] {
    return [...this.#adapters]
  }

  /**
   * Builds the request. `windowMessages` and `windowTokens` come from the session's ContextWindow, so the
   * history costs one array concat, not a re-read or a re-count.
   */
  async build(input: ContextBuildInput, windowMessages: ModelMessage[], windowTokens: number): Promise<BuiltContext> {
    // A copy, so an adapter that pushes a tool never grows the run's cached tool list step after step.
    const draft: ContextDraft = { system: [], messages: [], tools: [...input.tools] }
    // `draft.messages` holds what adapters add; the history window goes where the history adapter stands,
    // so the request is assembled with one concat and the history is never re-counted.
    let beforeHistory: ModelMessage[] | undefined
    let extraTokens = 0
    for (const adapter of this.#adapters) {
      if (adapter === historyAdapter) {
        beforeHistory = draft.messages
        draft.messages = []
        continue
      }
      const before = draft.messages.length
      const applied = adapter.apply(draft, input)
      if (applied) await applied
      for (let i = before; i < draft.messages.length; i++) extraTokens += countMessageTokens(draft.messages[i]!, this.tokenizer)
    }
    const systemText = draft.system.join('\n\n')
    const head: ModelMessage[] = systemText ? [{ role: 'system', content: systemText }] : []
    const messages = beforeHistory ? head.concat(beforeHistory, windowMessages, draft.messages) : head.concat(draft.messages, windowMessages)
    // Unchanged tools keep the caller's array, whose token count is cached by identity.
    const tools = sameTools(draft.tools, input.tools) ? input.tools : draft.tools
    // Built whole, every field the run sets later included (a field added afterwards gives the request a map V8
    // drops at each major GC, and the hot caller's inline caches with it: see RunExecution's shapeKeeper).
    const request: ModelRequest = tools.length ? { messages, tools, maxOutputTokens: undefined } : { messages, maxOutputTokens: undefined }
    const tokens = windowTokens + extraTokens + (systemText ? this.#systemTokens(systemText) : 0) + this.#toolTokens(tools)
    return { request, tokens }
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

function sameTools(a: ToolSpecification[], b: ToolSpecification[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index])
}

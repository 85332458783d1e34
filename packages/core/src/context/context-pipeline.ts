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
    let historyInserted = false
    let extraTokens = 0
    for (const adapter of this.#adapters) {
      if (adapter === historyAdapter) {
        // The built-in history adapter is applied by reference to the cached window: one concat, no re-count.
        draft.messages = draft.messages.concat(windowMessages)
        historyInserted = true
        continue
      }
      const before = draft.messages.length
      await adapter.apply(draft, input)
      for (let i = before; i < draft.messages.length; i++) extraTokens += countMessageTokens(draft.messages[i]!, this.tokenizer)
    }
    if (!historyInserted) draft.messages = draft.messages.concat(windowMessages)
    const systemText = draft.system.join('\n\n')
    // Unchanged tools keep the caller's array, whose token count is cached by identity.
    const tools = sameTools(draft.tools, input.tools) ? input.tools : draft.tools
    const request: ModelRequest = {
      messages: systemText ? [{ role: 'system', content: systemText } as ModelMessage].concat(draft.messages) : draft.messages,
      ...(tools.length ? { tools } : {}),
    }
    const tokens = windowTokens + extraTokens + (systemText ? this.tokenizer.count(systemText) + 4 : 0) + this.#toolTokens(tools)
    return { request, tokens }
  }

  #toolTokens(tools: ToolSpecification[]): number {
    if (!tools.length) return 0
    let cached = this.#toolTokenCache.get(tools)
    if (cached === undefined) {
      cached = this.tokenizer.count(JSON.stringify(tools))
      this.#toolTokenCache.set(tools, cached)
    }
    return cached
  }
}

function sameTools(a: ToolSpecification[], b: ToolSpecification[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index])
}

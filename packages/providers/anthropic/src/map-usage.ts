// Anthropic usage → Spindle usage. Anthropic's `input_tokens` excludes cache reads and cache
// writes; Spindle's `inputTokens` counts every input token, with cache reads in `cachedInputTokens`.
import type { Usage } from '@spindle/core'

export interface AnthropicUsageFields {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
  output_tokens_details?: { thinking_tokens?: number | null } | null
}

/** Running usage of one message: `message_start` sets it, each `message_delta` overrides the fields it carries. */
export class UsageAccumulator {
  #input = 0
  #output = 0
  #cacheRead = 0
  #cacheCreation = 0
  #thinking: number | undefined

  update(usage: AnthropicUsageFields | null | undefined): void {
    if (!usage) return
    if (typeof usage.input_tokens === 'number') this.#input = usage.input_tokens
    if (typeof usage.output_tokens === 'number') this.#output = usage.output_tokens
    if (typeof usage.cache_read_input_tokens === 'number') this.#cacheRead = usage.cache_read_input_tokens
    if (typeof usage.cache_creation_input_tokens === 'number') this.#cacheCreation = usage.cache_creation_input_tokens
    const thinking = usage.output_tokens_details?.thinking_tokens
    if (typeof thinking === 'number') this.#thinking = thinking
  }

  toUsage(): Usage {
    const inputTokens = this.#input + this.#cacheRead + this.#cacheCreation
    return {
      inputTokens,
      outputTokens: this.#output,
      ...(this.#cacheRead > 0 ? { cachedInputTokens: this.#cacheRead } : {}),
      ...(this.#thinking !== undefined ? { reasoningTokens: this.#thinking } : {}),
      totalTokens: inputTokens + this.#output,
    }
  }
}

// Model prices and the cost of a usage: a table users extend (`extensions.prices`), looked up per step.
import type { Usage } from '../spec/messages.js'

/** US dollars per million tokens. `cachedInput` applies to cache reads (default: `input`). */
export interface ModelPrice {
  input: number
  output: number
  cachedInput?: number
}

/** Prices keyed by `provider:modelId` or by bare `modelId`; dated snapshots (`gpt-4o-2024-08-06`) match their base id. */
export type PriceTable = Record<string, ModelPrice>

/**
 * A few known models, in USD per million tokens, as published by the providers when this table was written.
 * Prices change: this table is a starting point that you extend or override, e.g.
 * `extensions.prices['openai:my-fine-tune'] = { input: 3, output: 12 }` (the entry you set wins).
 */
export const priceTable: Readonly<PriceTable> = Object.freeze({
  'openai:gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'openai:gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'openai:gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'openai:gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'openai:gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'openai:gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'openai:gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'openai:gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'openai:o3': { input: 2, cachedInput: 0.5, output: 8 },
  'openai:o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'anthropic:claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
  'anthropic:claude-opus-4-1': { input: 15, cachedInput: 1.5, output: 75 },
  'anthropic:claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
  'anthropic:claude-sonnet-4-5': { input: 3, cachedInput: 0.3, output: 15 },
  'anthropic:claude-haiku-4-5': { input: 1, cachedInput: 0.1, output: 5 },
  'anthropic:claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
})

/**
 * The price of a model: an exact `provider:modelId` or `modelId` entry, else the longest entry that the id
 * starts with followed by `-` (dated snapshots). `undefined` when the table does not know it.
 */
export function findModelPrice(prices: PriceTable, provider: string, modelId: string): ModelPrice | undefined {
  const qualified = `${provider}:${modelId}`
  const exact = prices[qualified] ?? prices[modelId]
  if (exact) return exact
  let best: ModelPrice | undefined
  let bestLength = 0
  // Compared in place (no string built per key: this runs once per run and model).
  const prefix = provider.length + 1
  for (const key in prices) {
    const ownEntry = key.length > prefix && key.startsWith(provider) && key.charCodeAt(provider.length) === colon
    if (!ownEntry && key.includes(':')) continue
    const from = ownEntry ? prefix : 0
    const length = key.length - from
    if (length > bestLength && modelId.length > length && modelId.charCodeAt(length) === dash && modelId.startsWith(from ? key.slice(from) : key)) {
      best = prices[key]
      bestLength = length
    }
  }
  return best
}

const colon = 58
const dash = 45

/** The cost in USD of one usage at a price. Cached input tokens (part of `inputTokens`) are billed at `cachedInput`. */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens)
  const fresh = usage.inputTokens - cached
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000
}

/**
 * One step's usage with `costUsd` filled from the table (a cost the provider reported is kept).
 * The kernel calls it for every model call, so `RunOutput.usage.costUsd` and `policy.budget.maxCostUsd` work.
 */
export function priceUsage(usage: Usage | undefined, prices: PriceTable | undefined, model: { provider: string; modelId: string }): Usage | undefined {
  if (!usage || usage.costUsd !== undefined || !prices) return usage
  const price = findModelPrice(prices, model.provider, model.modelId)
  return price ? Object.assign({}, usage, { costUsd: costOf(usage, price) }) : usage
}

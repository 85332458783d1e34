// What Spindle knows about OpenAI model ids: capabilities and whether a model reasons
// (reasoning models take `developer` messages and reject temperature/top_p).
import type { ModelCapabilities } from '@spindle/core'

const reasoningModel = /^(o\d|gpt-5|codex|gpt-oss)/i

export function isReasoningModel(modelId: string): boolean {
  return reasoningModel.test(modelId)
}

const table: Array<[RegExp, Omit<ModelCapabilities, 'tools' | 'parallelTools' | 'structuredOutput'>]> = [
  [/^gpt-5/i, { contextWindow: 400_000, maxOutputTokens: 128_000, reasoning: true }],
  [/^gpt-4\.1/i, { contextWindow: 1_047_576, maxOutputTokens: 32_768, reasoning: false }],
  [/^(o3|o4)/i, { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true }],
  [/^o1/i, { contextWindow: 200_000, maxOutputTokens: 100_000, reasoning: true }],
  [/^gpt-4o/i, { contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false }],
  [/^gpt-oss/i, { contextWindow: 131_072, maxOutputTokens: 32_768, reasoning: true }],
]

/** Capabilities for a model id; unknown ids (other servers' models) get conservative defaults. */
export function capabilitiesFor(modelId: string, overrides: Partial<ModelCapabilities> = {}): ModelCapabilities {
  const known = table.find(([pattern]) => pattern.test(modelId))?.[1]
  return {
    contextWindow: known?.contextWindow ?? 128_000,
    maxOutputTokens: known?.maxOutputTokens ?? 16_384,
    reasoning: known?.reasoning ?? false,
    tools: true,
    parallelTools: true,
    structuredOutput: true,
    ...overrides,
  }
}

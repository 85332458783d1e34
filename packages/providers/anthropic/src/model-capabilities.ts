// What each Claude model can do, so the kernel can budget context and output.
import type { ModelCapabilities } from '@spindle/core'

const base: ModelCapabilities = {
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  tools: true,
  parallelTools: true,
  reasoning: true,
  structuredOutput: true,
}

/** Capabilities by model id prefix; unknown (newer) ids get the current generation's limits. */
export function anthropicModelCapabilities(modelId: string): ModelCapabilities {
  const id = modelId.toLowerCase()
  if (id.startsWith('claude-3-haiku') || id.startsWith('claude-3-opus') || id.startsWith('claude-3-sonnet')) {
    return { ...base, maxOutputTokens: 4_096, reasoning: false, structuredOutput: false }
  }
  if (id.startsWith('claude-3-5')) return { ...base, maxOutputTokens: 8_192, reasoning: false, structuredOutput: false }
  if (id.startsWith('claude-3-7')) return { ...base, maxOutputTokens: 64_000 }
  if (id.startsWith('claude-opus-4-0') || id.startsWith('claude-opus-4-1') || id === 'claude-opus-4' || id.startsWith('claude-opus-4-2025')) {
    return { ...base, maxOutputTokens: 32_000 }
  }
  return { ...base }
}

// Token usage arithmetic, shared by the run loop and the session usage report.
import type { Usage } from '../spec/messages.js'

/** A usage of zero tokens. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 }
}

/** `total` plus `step` (a step without usage adds nothing); optional counts appear only when non-zero. */
export function addUsage(total: Usage, step: Usage | undefined): Usage {
  if (!step) return total
  const sum: Usage = {
    inputTokens: total.inputTokens + (step.inputTokens ?? 0),
    outputTokens: total.outputTokens + (step.outputTokens ?? 0),
  }
  const cached = (total.cachedInputTokens ?? 0) + (step.cachedInputTokens ?? 0)
  if (cached) sum.cachedInputTokens = cached
  const reasoning = (total.reasoningTokens ?? 0) + (step.reasoningTokens ?? 0)
  if (reasoning) sum.reasoningTokens = reasoning
  const cost = (total.costUsd ?? 0) + (step.costUsd ?? 0)
  if (cost) sum.costUsd = cost
  sum.totalTokens = sum.inputTokens + sum.outputTokens
  return sum
}

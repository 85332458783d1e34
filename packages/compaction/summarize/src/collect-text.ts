// Drains a model stream into its text, turning error parts and error finishes into exceptions.
import type { LanguageModel, ModelFinishReason, ModelRequest } from '@spindle/core'

export async function collectText(
  model: LanguageModel,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<{ text: string; finishReason: ModelFinishReason | undefined }> {
  let text = ''
  let finishReason: ModelFinishReason | undefined
  for await (const part of model.stream(request, { signal })) {
    if (signal.aborted) throw signal.reason
    if (part.type === 'text-delta') text += part.delta
    else if (part.type === 'error') throw part.error
    else if (part.type === 'finish') finishReason = part.finishReason
  }
  if (signal.aborted) throw signal.reason
  if (finishReason === 'error' || finishReason === 'content-filter') {
    throw new Error(`[spindle/compaction-summarize] the summarizer model finished with "${finishReason}"`)
  }
  return { text, finishReason }
}

// The built-in context adapters: instructions (plus the summary of the last compaction), then the history window.
import type { ContextAdapter } from './context-adapter.js'

export const instructionsAdapter: ContextAdapter = {
  name: 'instructions',
  apply(draft, input) {
    if (input.instructions) draft.system.push(input.instructions)
    if (input.compaction?.summary) draft.system.push(`Summary of the earlier conversation:\n${input.compaction.summary}`)
  },
}

export const historyAdapter: ContextAdapter = {
  name: 'history',
  apply(draft, input) {
    for (const entry of input.window) if (entry.kind === 'message') draft.messages.push(entry.message)
  },
}

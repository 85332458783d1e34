// The built-in context adapters: instructions (plus the summary of the last compaction), then the history window.
import type { ContextAdapter } from '../spec/context-adapter.js'

/** The built-in first adapter: the agent's instructions, then the summary of the session's last compaction. */
export const instructionsAdapter: ContextAdapter = {
  specificationVersion: 'v1',
  name: 'instructions',
  apply(draft, input) {
    if (input.instructions) draft.system.push(input.instructions)
    if (input.compaction?.summary) draft.system.push(`Summary of the earlier conversation:\n${input.compaction.summary}`)
  },
}

/** The built-in second adapter: the messages of the session's window, oldest first. */
export const historyAdapter: ContextAdapter = {
  specificationVersion: 'v1',
  name: 'history',
  apply(draft, input) {
    for (const entry of input.window) if (entry.kind === 'message') draft.messages.push(entry.message)
  },
}

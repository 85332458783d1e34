// The core compaction strategy: drop the oldest part of the window (kept in the log) at a safe boundary.
import type { CompactionStrategy } from './compaction-strategy.js'
import { safeCutPoints } from './safe-boundary.js'
import type { ModelMessage } from '../spec/messages.js'

export function truncateCompaction(): CompactionStrategy {
  return {
    name: 'truncate',
    async compact({ window, targetTokens, countTokens, previous }) {
      const points = safeCutPoints(window)
      if (!points.length) return undefined
      const messages: ModelMessage[] = []
      const tokens: number[] = []
      for (const entry of window) {
        const message = entry.kind === 'message' ? [entry.message] : []
        tokens.push(countTokens(message))
        messages.push(...message)
      }
      const total = tokens.reduce((sum, value) => sum + value, 0)
      let removed = 0
      let index = 0
      let chosen: number | undefined
      for (const seq of points) {
        while (index < window.length && window[index]!.seq <= seq) removed += tokens[index++]!
        chosen = seq
        if (total - removed <= targetTokens) break
      }
      if (chosen === undefined) return undefined
      // A summary written by an earlier compaction is carried forward: falling back to truncation (a failing
      // summarizer) drops the newest compacted turns, never the older memory.
      return { throughSeq: chosen, strategy: 'truncate', tokensBefore: total, tokensAfter: total - removed, ...(previous?.summary ? { summary: previous.summary } : {}) }
    },
  }
}

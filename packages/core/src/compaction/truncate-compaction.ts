// The core compaction strategy: drop the oldest part of the window (kept in the log) at a safe boundary.
import type { CompactionStrategy } from '../spec/compaction-strategy.js'
import { carriedOver, safeCutPoints } from './safe-boundary.js'
import type { ModelMessage } from '../spec/messages.js'

/** The default compaction strategy: drops the oldest turns (never between a tool call and its result) until the window fits the target. */
export function truncateCompaction(): CompactionStrategy {
  return {
    specificationVersion: 'v1',
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
      // The cut that reaches the target, else the one that saves the most: a cut also keeps the latest user message
      // it passes (carried over), so the last cut point is not always the smallest context.
      let removed = 0
      let index = 0
      let chosen: number | undefined
      let best = 0
      // The carried message is the same one for most cuts: counted once per message.
      let counted: ModelMessage | undefined
      let countedTokens = 0
      for (const seq of points) {
        while (index < window.length && window[index]!.seq <= seq) removed += tokens[index++]!
        const carried = carriedOver(window, seq)?.[0]?.message
        if (carried !== undefined && carried !== counted) {
          counted = carried
          countedTokens = countTokens([carried])
        }
        const saved = removed - (carried === undefined ? 0 : countedTokens)
        if (saved <= best) continue
        best = saved
        chosen = seq
        if (total - saved <= targetTokens) break
      }
      // Nothing to gain (only the current question could go, and it would be carried over): no compaction.
      if (chosen === undefined) return undefined
      // A summary written by an earlier compaction is carried forward: falling back to truncation (a failing
      // summarizer) drops the newest compacted turns, never the older memory.
      return {
        throughSeq: chosen,
        strategy: 'truncate',
        tokensBefore: total,
        tokensAfter: total - best,
        ...(previous?.summary ? { summary: previous.summary } : {}),
      }
    },
  }
}

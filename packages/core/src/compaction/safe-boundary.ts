// Where a context window may be cut: never between a tool call and its result.
import type { SessionEntry } from '../spec/session-store.js'

/**
 * Returns the seqs after which a cut is safe: the entry that follows is a user message, or an assistant
 * message (so no tool result loses its call). The last entry is never included (something must remain).
 */
export function safeCutPoints(window: SessionEntry[]): number[] {
  const points: number[] = []
  for (let i = 0; i < window.length - 1; i++) {
    const next = window[i + 1]!
    if (next.kind === 'message' && next.message.role !== 'tool') points.push(window[i]!.seq)
  }
  return points
}

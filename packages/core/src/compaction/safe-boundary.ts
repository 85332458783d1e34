// Where a context window may be cut: never between a tool call and its result.
import type { ModelMessage } from '../spec/messages.js'
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

/**
 * What a cut through `throughSeq` must carry over: the latest user message it removes, when no user message would
 * remain after it. A long run's steps can fill the window on their own; cutting them must not take the question
 * the run is answering with them (the model would answer without it, and some providers reject a request that
 * starts with an assistant message).
 */
export function carriedOver(window: SessionEntry[], throughSeq: number): Array<{ seq: number; message: ModelMessage }> | undefined {
  let carried: SessionEntry | undefined
  for (const entry of window) {
    if (entry.kind !== 'message' || entry.message.role !== 'user') continue
    if (entry.seq > throughSeq) return undefined
    carried = entry
  }
  return carried?.kind === 'message' ? [{ seq: carried.seq, message: carried.message }] : undefined
}

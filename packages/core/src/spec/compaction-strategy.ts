// CompactionStrategy: decides how to shrink a session's context window (truncate in core, summarize as a package).
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'

export interface CompactionInput {
  sessionId: string
  /** The current window, oldest first (after the previous compaction). */
  window: SessionEntry[]
  previous: CompactionRecord | undefined
  /** The window must be brought to at most this many tokens. */
  targetTokens: number
  countTokens(messages: ModelMessage[]): number
  signal: AbortSignal
}

export interface CompactionStrategy {
  readonly name: string
  /**
   * Returns the compaction to record, or `undefined` when nothing can be compacted.
   * `throughSeq` must end on a boundary that never splits a tool call from its result.
   */
  compact(input: CompactionInput): Promise<CompactionRecord | undefined>
}

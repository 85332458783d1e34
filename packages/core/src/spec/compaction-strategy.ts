// CompactionStrategy: decides how to shrink a session's context window (truncate in core, summarize as a package).
import type { ModelMessage } from './messages.js'
import type { CompactionRecord, SessionEntry } from './session-store.js'

/** What a strategy is given: the session's current window, the previous compaction and the token target. */
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

/**
 * A compaction strategy (spec v1), set as `extensions.compaction`.
 *
 * @example
 * const keepLastTen: CompactionStrategy = {
 *   specificationVersion: 'v1',
 *   name: 'keep-last-ten',
 *   async compact({ window }) { ... },
 * }
 */
export interface CompactionStrategy {
  /**
   * The spec version the strategy implements. Packages set it (the conformance kit checks it); a strategy written
   * inline may leave it out, which means `'v1'`. Any other value is refused when the strategy is set.
   */
  readonly specificationVersion?: 'v1'
  readonly name: string
  /**
   * Returns the compaction to record, or `undefined` when nothing can be compacted.
   * `throughSeq` must end on a boundary that never splits a tool call from its result.
   */
  compact(input: CompactionInput): Promise<CompactionRecord | undefined>
}

// CompactionService: decides when to compact, runs the strategy, and falls back to truncation behind a circuit breaker.
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'
import type { CompactionStrategy } from '../spec/compaction-strategy.js'
import { carriedOver, safeCutPoints } from './safe-boundary.js'
import { truncateCompaction } from './truncate-compaction.js'

/** The circuit breaker of `CompactionService`: how many consecutive strategy failures open it, and how long the strategy is then bypassed (truncation is used meanwhile). */
export interface CompactionServiceOptions {
  /** Consecutive failures of the strategy before it is bypassed (truncation is used instead). */
  failureThreshold?: number
  /** How long the strategy stays bypassed after the breaker opens. */
  cooldownMs?: number
}

/** One compaction: the session's window, the previous compaction record, the token target, the token counter and a signal. */
export interface CompactRequest {
  sessionId: string
  window: SessionEntry[]
  previous: CompactionRecord | undefined
  targetTokens: number
  countTokens(messages: ModelMessage[]): number
  signal: AbortSignal
  /** Told when the strategy failed (threw, or returned an unusable record) and truncation is used instead. */
  onStrategyError?(error: unknown, strategy: string): void
}

/** Runs the compaction strategy with a safety net: an unusable result or a failure falls back to truncation, and repeated failures open a circuit breaker. */
export class CompactionService {
  readonly strategy: CompactionStrategy
  readonly #fallback = truncateCompaction()
  readonly #failureThreshold: number
  readonly #cooldownMs: number
  #failures = 0
  #openUntil = 0
  lastError: unknown

  constructor(strategy: CompactionStrategy = truncateCompaction(), options: CompactionServiceOptions = {}) {
    this.strategy = strategy
    this.#failureThreshold = options.failureThreshold ?? 3
    this.#cooldownMs = options.cooldownMs ?? 60_000
  }

  /** True while the strategy is bypassed after repeated failures. */
  get circuitOpen(): boolean {
    return Date.now() < this.#openUntil
  }

  /** Returns a compaction record, or undefined when nothing can be compacted. A failed or empty summary never replaces history. */
  async compact(request: CompactRequest): Promise<CompactionRecord | undefined> {
    if (this.strategy !== this.#fallback && !this.circuitOpen) {
      try {
        const record = await this.strategy.compact(request)
        if (record && this.#valid(record, request)) {
          this.#failures = 0
          return withCarried(record, request.window)
        }
        if (record) throw new Error(`compaction strategy "${this.strategy.name}" returned an empty summary or an unsafe boundary`)
        return undefined
      } catch (error) {
        if (request.signal.aborted) throw error
        this.lastError = error
        this.#failures++
        if (this.#failures >= this.#failureThreshold) {
          this.#openUntil = Date.now() + this.#cooldownMs
          this.#failures = 0
        }
        request.onStrategyError?.(error, this.strategy.name)
      }
    }
    const record = await this.#fallback.compact(request)
    return record && withCarried(record, request.window)
  }

  #valid(record: CompactionRecord, request: CompactRequest): boolean {
    if (record.strategy !== 'truncate' && !record.summary?.trim()) return false
    return safeCutPoints(request.window).includes(record.throughSeq)
  }
}

/** The record with the latest user message its cut passes carried over (see `carriedOver`). */
function withCarried(record: CompactionRecord, window: SessionEntry[]): CompactionRecord {
  const carried = carriedOver(window, record.throughSeq)
  return carried ? { ...record, carried } : record
}

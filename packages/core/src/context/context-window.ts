// The in-memory context window of one session: entries after the last compaction, with running token counts,
// so that a step costs O(new entries), never O(history).
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'
import { countMessageTokens, type Tokenizer } from './tokenizer.js'

/** A session's context window kept in memory between steps: the entries after the last compaction and their token count. */
export class ContextWindow {
  readonly entries: SessionEntry[] = []
  readonly messages: ModelMessage[] = []
  readonly #tokens: number[] = []
  #total = 0
  compaction: CompactionRecord | undefined
  lastSeq = 0

  constructor(readonly tokenizer: Tokenizer) {}

  get tokens(): number {
    return this.#total
  }

  /** Adds entries in seq order (ignores ones already present); a compaction entry drops what it covers. */
  add(entries: SessionEntry[]): void {
    for (const entry of entries) {
      if (entry.seq <= this.lastSeq) continue
      this.lastSeq = entry.seq
      if (entry.kind === 'compaction') {
        this.applyCompaction(entry.compaction, entry.sessionId)
        continue
      }
      const tokens = countMessageTokens(entry.message, this.tokenizer)
      this.entries.push(entry)
      this.messages.push(entry.message)
      this.#tokens.push(tokens)
      this.#total += tokens
    }
  }

  applyCompaction(compaction: CompactionRecord, sessionId = ''): void {
    this.compaction = compaction
    let drop = 0
    while (drop < this.entries.length && this.entries[drop]!.seq <= compaction.throughSeq) {
      this.#total -= this.#tokens[drop]!
      drop++
    }
    if (drop) {
      this.entries.splice(0, drop)
      this.messages.splice(0, drop)
      this.#tokens.splice(0, drop)
    }
    // Kept at the head with their own seqs (below the cut): the next compaction drops them and carries them again if
    // they are still needed.
    const carried = compaction.carried
    if (carried === undefined) return
    for (let index = carried.length - 1; index >= 0; index--) {
      const { seq, message } = carried[index]!
      const tokens = countMessageTokens(message, this.tokenizer)
      this.entries.unshift({ kind: 'message', message, sessionId, seq, createdAt: 0 })
      this.messages.unshift(message)
      this.#tokens.unshift(tokens)
      this.#total += tokens
    }
  }

  /** Token count of entries with seq > throughSeq (what would remain after compacting through it). */
  tokensAfter(throughSeq: number): number {
    let total = this.#total
    for (let i = 0; i < this.entries.length && this.entries[i]!.seq <= throughSeq; i++) total -= this.#tokens[i]!
    return total
  }
}

// The context windows of recent sessions, kept in memory between runs (least recently used first out) and
// refreshed with only the entries appended since.
import { ContextWindow } from '../context/context-window.js'
import type { Tokenizer } from '../context/tokenizer.js'
import type { SessionStore } from '../spec/session-store.js'

/** The context windows of recent sessions, cached between runs. */
export class SessionWindowCache {
  readonly #windows = new Map<string, ContextWindow>()
  readonly #sessions: () => SessionStore
  readonly #tokenizer: Tokenizer
  readonly #limit: number

  /** `sessions` is read at each use (the registered store may change); `limit` sessions are kept. */
  constructor(sessions: () => SessionStore, tokenizer: Tokenizer, limit = 256) {
    this.#sessions = sessions
    this.#tokenizer = tokenizer
    this.#limit = limit
  }

  /** The window of a session created just now: empty, cached like any other. */
  empty(sessionId: string): ContextWindow {
    const window = new ContextWindow(this.#tokenizer)
    this.#keep(sessionId, window)
    return window
  }

  /** The session's window as its log stands: the cached one brought up to date, or one read from the log. */
  async get(sessionId: string): Promise<ContextWindow> {
    const sessions = this.#sessions()
    const session = await sessions.getSession(sessionId)
    // No session yet (a run about to create it): nothing to read.
    if (session === undefined) return new ContextWindow(this.#tokenizer)
    const { lastSeq } = session
    let window = this.#windows.get(sessionId)
    if (window && window.lastSeq > lastSeq) window = undefined
    if (!window) {
      window = new ContextWindow(this.#tokenizer)
      const [compaction] = await sessions.listEntries(sessionId, { kind: 'compaction', order: 'desc', limit: 1 })
      const after = compaction && compaction.kind === 'compaction' ? compaction.compaction.throughSeq : 0
      window.add(await sessions.listEntries(sessionId, { after }))
    } else if (window.lastSeq < lastSeq) {
      window.add(await sessions.listEntries(sessionId, { after: window.lastSeq }))
    }
    this.#keep(sessionId, window)
    return window
  }

  #keep(sessionId: string, window: ContextWindow): void {
    this.#windows.delete(sessionId)
    this.#windows.set(sessionId, window)
    while (this.#windows.size > this.#limit) this.#windows.delete(this.#windows.keys().next().value!)
  }
}

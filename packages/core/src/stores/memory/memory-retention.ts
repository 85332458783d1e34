// How long the memory stores keep a finished session: the least recently used ones beyond `maxSessions`, and the
// ones unused for `maxAgeMs`, are evicted with everything that belongs to them. Sessions with a run that is not
// over are never evicted.
import { ConfigurationError } from '../../errors/errors.js'
import type { RunStatus } from '../../spec/run-store.js'

/** What the memory stores keep of finished sessions (see `memoryStores({ retention })`). */
export interface MemoryRetentionOptions {
  /**
   * The finished sessions kept (default 1,000): past it, the least recently used one is evicted. A positive integer,
   * or `Infinity`. Keep it above the number of runs you serve at once.
   */
  maxSessions?: number
  /** A finished session unused for this long is evicted (default: no age limit). */
  maxAgeMs?: number
}

/** The default retention: the last 1,000 finished sessions. */
export const defaultMemoryRetention: Readonly<Required<Pick<MemoryRetentionOptions, 'maxSessions'>>> = Object.freeze({ maxSessions: 1_000 })

/** Removes what a session holds from one memory store (internal to the memory stores). */
export const evictSession = Symbol('spindle.memory.evictSession')
/** Removes what a run holds from one memory store (internal to the memory stores). */
export const evictRun = Symbol('spindle.memory.evictRun')
/** How many records a memory store holds, by kind (internal to the memory stores). */
export const countRecords = Symbol('spindle.memory.countRecords')

/** The parts of a memory store set that eviction reaches. */
export interface EvictableStores {
  sessions: { [evictSession](sessionId: string): void }
  /** Removes the session's runs and their event logs; returns their ids. */
  runs: { [evictSession](sessionId: string): string[]; hasUnfinishedRun(sessionId: string): boolean }
  executions: { [evictRun](runId: string): void }
  snapshots: { [evictRun](runId: string): void }
  artifacts: { [evictRun](runId: string): void }
  embeddings: { [evictSession](sessionId: string): void }
}

const unfinished: ReadonlySet<RunStatus> = new Set<RunStatus>(['queued', 'running', 'interrupted', 'suspended'])

/** Whether a run with this status is still going (queued, running, interrupted, awaiting approval). */
export function isUnfinishedStatus(status: RunStatus): boolean {
  return unfinished.has(status)
}

/**
 * The finished sessions of one memory store set, least recently used first. A session enters when one of its runs
 * ends, leaves when a run of it starts; reading it (`getSession`) or appending to it counts as a use. Eviction is
 * amortized: each session is evicted once, when a run ends or a session is used, never by a scan of the stores.
 */
export class MemoryRetention {
  readonly maxSessions: number
  readonly maxAgeMs: number
  /** Finished sessions → when last used, in order of use (a Map keeps insertion order). */
  readonly #finished = new Map<string, number>()
  #stores: EvictableStores | undefined
  #evicting = false

  constructor(options: MemoryRetentionOptions = defaultMemoryRetention) {
    const maxSessions = options.maxSessions ?? defaultMemoryRetention.maxSessions
    const maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY
    if (!(maxSessions === Number.POSITIVE_INFINITY || (Number.isInteger(maxSessions) && maxSessions >= 1))) {
      throw new ConfigurationError(`[spindle/store-memory] retention "maxSessions" must be a positive integer or Infinity, got ${String(maxSessions)}`)
    }
    if (!(typeof maxAgeMs === 'number' && maxAgeMs > 0)) {
      throw new ConfigurationError(`[spindle/store-memory] retention "maxAgeMs" must be a positive number of milliseconds, got ${String(maxAgeMs)}`)
    }
    this.maxSessions = maxSessions
    this.maxAgeMs = maxAgeMs
  }

  /** Connects the stores that eviction empties (done once by `memoryStores()`). */
  attach(stores: EvictableStores): void {
    this.#stores = stores
  }

  /** The finished sessions held now (candidates for eviction). */
  get finishedSessions(): number {
    return this.#finished.size
  }

  /** A run of the session ended: the session becomes the most recently used finished one; the oldest may go. */
  runEnded(sessionId: string): void {
    const finished = this.#finished
    finished.delete(sessionId)
    const now = Date.now()
    finished.set(sessionId, now)
    this.#sweep(now)
  }

  /** A run of the session started (or came back): the session is not a candidate while it goes on. */
  runStarted(sessionId: string): void {
    this.#finished.delete(sessionId)
  }

  /**
   * The session is used: a finished one becomes the most recently used, unless it outlived `maxAgeMs` — then it is
   * evicted now (with the others as old), and reads as not found. Call it before reading.
   */
  touch(sessionId: string): void {
    const finished = this.#finished
    const used = finished.get(sessionId)
    if (used === undefined) return
    const now = Date.now()
    if (now - used > this.maxAgeMs) return this.#sweep(now)
    finished.delete(sessionId)
    finished.set(sessionId, now)
  }

  /** The session was deleted: nothing left to evict. */
  forget(sessionId: string): void {
    this.#finished.delete(sessionId)
  }

  /** Evicts past the count, then the ones older than the age limit (oldest first: the loop stops at a young one). */
  #sweep(now: number): void {
    const stores = this.#stores
    if (stores === undefined || this.#evicting) return
    this.#evicting = true
    try {
      const finished = this.#finished
      for (const [sessionId, used] of finished) {
        if (finished.size <= this.maxSessions && now - used <= this.maxAgeMs) break
        finished.delete(sessionId)
        // A run started on it without passing through the run store's start (or it came back): kept, and it comes
        // back as a candidate when that run ends.
        if (stores.runs.hasUnfinishedRun(sessionId)) continue
        this.#evict(stores, sessionId)
      }
    } finally {
      this.#evicting = false
    }
  }

  #evict(stores: EvictableStores, sessionId: string): void {
    for (const runId of stores.runs[evictSession](sessionId)) {
      stores.executions[evictRun](runId)
      stores.snapshots[evictRun](runId)
      stores.artifacts[evictRun](runId)
    }
    stores.embeddings[evictSession](sessionId)
    stores.sessions[evictSession](sessionId)
  }
}

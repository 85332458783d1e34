// The memory stores' copies of their two largest per-step values — snapshots and session entries — made at
// their own call sites. Each is the same deep copy as `cloneValue` (every key walked, every object copied), but
// V8 keeps a spread and a key walk fast only while the site sees a few object layouts: the shared `cloneValue`,
// fed every layout the stores hold, turns megamorphic and takes the generic path (measured on a run's snapshot:
// 374 ns through `cloneValue` against 159 ns here). Session entries are copied key by key and frozen
// (`frozenCopy`), so that reads can share them.
import type { ModelMessage } from '../../spec/messages.js'
import type { CompactionRecord, SessionEntry, SessionEntryInput } from '../../spec/session-store.js'
import type { RunSnapshot } from '../../spec/snapshot-store.js'
import { cloneValue } from '../clone-value.js'
import { sizedArray } from '../../util/sized-array.js'

function isPlainObject(value: object): boolean {
  return Object.getPrototypeOf(value) === Object.prototype
}

/** A deep copy of a snapshot: its fields, and its state's, walked here; deeper values by `cloneValue`. */
export function copySnapshot(snapshot: RunSnapshot): RunSnapshot {
  if (!isPlainObject(snapshot)) return cloneValue(snapshot)
  const copy = { ...snapshot } as Record<string, unknown>
  for (const key in copy) {
    const item = copy[key]
    if (item !== null && typeof item === 'object') copy[key] = key === 'state' ? copyState(item) : cloneValue(item)
  }
  return copy as unknown as RunSnapshot
}

function copyState(state: object): unknown {
  if (!isPlainObject(state)) return cloneValue(state)
  const copy = { ...state } as Record<string, unknown>
  for (const key in copy) {
    const item = copy[key]
    if (item !== null && typeof item === 'object') copy[key] = cloneValue(item)
  }
  return copy
}

/**
 * The entries an append stores: each built whole in one literal (`{ ...entry, seq }` takes a slow path in V8) on a
 * deep copy of its message or compaction, frozen at every depth when it can be (see `frozenCopy`): a frozen entry is
 * immutable, so reads hand it out shared instead of copying it (a cold session's window is read without a copy per
 * message). An input entry is not copied first (its fields are strings but for the payload), and the array is sized
 * once.
 */
export function storedEntries(entries: readonly SessionEntryInput[], sessionId: string, firstSeq: number, createdAt: number): SessionEntry[] {
  const stored: SessionEntry[] = sizedArray(entries.length)
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!
    const seq = firstSeq + index
    unfrozen = false
    const copy: SessionEntry =
      entry.kind === 'message'
        ? { kind: 'message', message: frozenCopy(entry.message) as ModelMessage, runId: entry.runId, sessionId, seq, createdAt }
        : { kind: 'compaction', compaction: frozenCopy(entry.compaction) as CompactionRecord, runId: entry.runId, sessionId, seq, createdAt }
    stored[index] = unfrozen ? copy : Object.freeze(copy)
  }
  return stored
}

/** An appended entry as its caller gets it: on the caller's own payload (never the stored copy). */
export function appendedEntry(entry: SessionEntryInput, sessionId: string, seq: number, createdAt: number): SessionEntry {
  return entry.kind === 'message'
    ? { kind: 'message', message: entry.message, runId: entry.runId, sessionId, seq, createdAt }
    : { kind: 'compaction', compaction: entry.compaction, runId: entry.runId, sessionId, seq, createdAt }
}

/**
 * A stored entry as a read hands it out: the entry itself when it is frozen (immutable at every depth, so a caller
 * can change nothing the store holds), else a deep copy (an entry holding a value `Object.freeze` cannot make
 * immutable, such as a byte array).
 */
export function entryOut(entry: SessionEntry): SessionEntry {
  return Object.isFrozen(entry) ? entry : cloneValue(entry)
}

/** Set by `frozenCopy` when it met a value freezing does not protect (the copy is then not immutable as a whole). */
let unfrozen = false

/**
 * A deep copy of plain data, frozen at every depth: objects and arrays are rebuilt key by key and frozen (a spread
 * copy, frozen, reads several times slower: measured 1.3 against 0.13 ms for 10,000 messages). A value freezing
 * does not protect (a typed array, whose elements stay writable; a Date or another class instance) is copied by
 * `cloneValue`, left unfrozen, and sets `unfrozen`: the entry holding it is copied on every read instead.
 */
export function frozenCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const copy: unknown[] = []
    for (let index = 0; index < value.length; index++) copy.push(frozenCopy(value[index]))
    return Object.freeze(copy)
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) {
    unfrozen = true
    return cloneValue(value)
  }
  const source = value as Record<string, unknown>
  const copy: Record<string, unknown> = {}
  for (const key in source) {
    // An own "__proto__" key (JSON.parse makes one) is defined as data, never assigned (that would set the prototype).
    if (key === '__proto__') Object.defineProperty(copy, key, { value: frozenCopy(source[key]), enumerable: true, writable: true, configurable: true })
    else copy[key] = frozenCopy(source[key])
  }
  return Object.freeze(copy)
}

// The memory stores' copies of their two largest per-step values — snapshots and session entries — made at
// their own call sites. Each is the same deep copy as `cloneValue` (every key walked, every object copied), but
// V8 keeps a spread and a key walk fast only while the site sees a few object layouts: the shared `cloneValue`,
// fed every layout the stores hold, turns megamorphic and takes the generic path (measured on a run's snapshot:
// 374 ns through `cloneValue` against 159 ns here).
import type { ModelMessage } from '../../spec/messages.js'
import type { SessionEntry, SessionEntryInput } from '../../spec/session-store.js'
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
 * deep copy of its message (the message and its parts walked here; deeper values by `cloneValue`) or compaction.
 * An input entry is not copied first (its fields are strings but for the payload), and the array is sized once.
 * Each entry is then frozen at every depth when it can be (see `freezeDeep`): a frozen entry is immutable, so reads
 * hand it out shared instead of copying it (a cold session's window is read without a copy per message).
 */
export function storedEntries(entries: readonly SessionEntryInput[], sessionId: string, firstSeq: number, createdAt: number): SessionEntry[] {
  const stored: SessionEntry[] = sizedArray(entries.length)
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!
    const seq = firstSeq + index
    const copy: SessionEntry =
      entry.kind === 'message'
        ? { kind: 'message', message: copyMessage(entry.message), runId: entry.runId, sessionId, seq, createdAt }
        : { kind: 'compaction', compaction: cloneValue(entry.compaction), runId: entry.runId, sessionId, seq, createdAt }
    if (freezeDeep(entry.kind === 'message' ? (copy as { message: object }).message : (copy as { compaction: object }).compaction)) Object.freeze(copy)
    stored[index] = copy
  }
  return stored
}

/**
 * A stored entry as a read hands it out: the entry itself when it is frozen (immutable at every depth, so a caller
 * can change nothing the store holds), else a deep copy (an entry holding a value `Object.freeze` cannot make
 * immutable, such as a byte array).
 */
export function entryOut(entry: SessionEntry): SessionEntry {
  return Object.isFrozen(entry) ? entry : cloneValue(entry)
}

/**
 * Freezes a value the store owns (its own copy) at every depth: true when all of it is now immutable (plain
 * objects, arrays, primitives), false when it holds something freezing does not protect (a typed array, whose
 * elements stay writable; a Date or any other class instance, whose state is internal). Plain parts are frozen
 * either way; the caller freezes the whole only on true.
 */
export function freezeDeep(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  let immutable = true
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!freezeDeep(value[index])) immutable = false
  } else {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) return false
    const record = value as Record<string, unknown>
    for (const key in record) if (!freezeDeep(record[key])) immutable = false
  }
  if (immutable) Object.freeze(value)
  return immutable
}

/** An appended entry as its caller gets it: on the caller's own payload (never the stored copy). */
export function appendedEntry(entry: SessionEntryInput, sessionId: string, seq: number, createdAt: number): SessionEntry {
  return entry.kind === 'message'
    ? { kind: 'message', message: entry.message, runId: entry.runId, sessionId, seq, createdAt }
    : { kind: 'compaction', compaction: entry.compaction, runId: entry.runId, sessionId, seq, createdAt }
}

export function copyMessage(message: ModelMessage): ModelMessage {
  if (!isPlainObject(message)) return cloneValue(message)
  const copy = { ...message } as Record<string, unknown>
  for (const key in copy) {
    const item = copy[key]
    if (item !== null && typeof item === 'object') copy[key] = key === 'content' && Array.isArray(item) ? copyParts(item) : cloneValue(item)
  }
  return copy as unknown as ModelMessage
}

function copyParts(parts: readonly unknown[]): unknown[] {
  const copies = parts.slice()
  for (let index = 0; index < copies.length; index++) {
    const part = copies[index]
    if (part !== null && typeof part === 'object') copies[index] = isPlainObject(part) ? copyPart(part) : cloneValue(part)
  }
  return copies
}

function copyPart(part: object): unknown {
  const copy = { ...part } as Record<string, unknown>
  for (const key in copy) {
    const item = copy[key]
    if (item !== null && typeof item === 'object') copy[key] = cloneValue(item)
  }
  return copy
}

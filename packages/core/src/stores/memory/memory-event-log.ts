// One run's event log in the memory RunStore, sorted by seq. A streamed answer is most of a run's events: its
// consecutive text (or reasoning) deltas are kept as one DeltaRun, their texts and timestamps in flat arrays,
// instead of an object per delta.
import { cloneValue } from '../clone-value.js'
import type { AgentEvent, AgentEventOf } from '../../spec/events.js'

type DeltaEvent = AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'>

/** Deltas sealed into one string at a time: a run of 10,000 deltas keeps about 80 strings, not 10,000. */
const sealEvery = 256

/**
 * Consecutive deltas of one type and step with consecutive seqs: the events are rebuilt from it when read. Only
 * events that hold exactly the fields of a delta join one (anything else is stored as a copy of itself).
 */
class DeltaRun {
  /** The texts of the sealed deltas, concatenated. */
  sealed = ''
  /** The deltas not sealed yet. */
  pending: string[] = []
  /** Each delta's end offset in the run's whole text. */
  readonly ends: number[] = []
  readonly timestamps: number[] = []
  #length = 0

  constructor(
    readonly type: DeltaEvent['type'],
    readonly step: number,
    readonly runId: string,
    readonly sessionId: string,
    readonly parentRunId: string | undefined,
    readonly firstSeq: number,
  ) {}

  get count(): number {
    return this.ends.length
  }

  get lastSeq(): number {
    return this.firstSeq + this.ends.length - 1
  }

  /** Whether `event` is this run's next delta. */
  continuedBy(event: DeltaEvent): boolean {
    return (
      event.type === this.type &&
      event.seq === this.firstSeq + this.ends.length &&
      event.step === this.step &&
      event.runId === this.runId &&
      event.sessionId === this.sessionId &&
      event.parentRunId === this.parentRunId
    )
  }

  push(delta: string, timestamp: number): void {
    this.#length += delta.length
    this.ends.push(this.#length)
    this.timestamps.push(timestamp)
    const pending = this.pending
    pending.push(delta)
    if (pending.length === sealEvery) {
      this.sealed += pending.join('')
      this.pending = []
    }
  }

  /** Keeps the first `count` deltas (the undo of a write that added the rest). */
  truncate(count: number): void {
    if (count >= this.ends.length) return
    this.sealed = this.#text().slice(0, count ? this.ends[count - 1]! : 0)
    this.pending = []
    this.ends.length = count
    this.timestamps.length = count
    this.#length = this.sealed.length
  }

  /** Events `from` (an index in the run) to `to` (excluded), rebuilt. */
  events(from: number, to: number, into: AgentEvent[]): void {
    const text = this.#text()
    const { ends, timestamps, type, step, runId, sessionId, parentRunId, firstSeq } = this
    for (let index = from; index < to; index++) {
      const delta = text.slice(index ? ends[index - 1]! : 0, ends[index]!)
      const seq = firstSeq + index
      const timestamp = timestamps[index]!
      into.push(
        parentRunId === undefined
          ? ({ type, step, delta, runId, sessionId, seq, timestamp } as AgentEvent)
          : ({ type, step, delta, runId, sessionId, seq, timestamp, parentRunId } as AgentEvent),
      )
    }
  }

  #text(): string {
    if (this.pending.length) {
      this.sealed += this.pending.join('')
      this.pending = []
    }
    return this.sealed
  }
}

type Entry = AgentEvent | DeltaRun

function firstSeqOf(entry: Entry): number {
  return entry instanceof DeltaRun ? entry.firstSeq : entry.seq
}

function lastSeqOf(entry: Entry): number {
  return entry instanceof DeltaRun ? entry.lastSeq : entry.seq
}

/** A delta with exactly a delta's fields (a field more would be lost in a DeltaRun). */
function isPlainDelta(event: AgentEvent): event is DeltaEvent {
  if (event.type !== 'text.delta' && event.type !== 'reasoning.delta') return false
  if (typeof event.delta !== 'string' || typeof event.step !== 'number' || typeof event.timestamp !== 'number') return false
  if (typeof event.runId !== 'string' || typeof event.sessionId !== 'string') return false
  const { parentRunId } = event
  if (parentRunId !== undefined && typeof parentRunId !== 'string') return false
  let keys = 0
  for (const key in event) if (Object.hasOwn(event, key)) keys++
  return keys === (parentRunId === undefined ? 7 : 8)
}

export class MemoryEventLog {
  readonly #entries: Entry[] = []

  /** The highest seq stored, or -Infinity. */
  lastSeq(): number {
    const entries = this.#entries
    return entries.length ? lastSeqOf(entries[entries.length - 1]!) : Number.NEGATIVE_INFINITY
  }

  /** Entries in the log (what `truncate` takes back to). */
  get size(): number {
    return this.#entries.length
  }

  /** How many events the log holds (each delta of a DeltaRun counts). */
  count(): number {
    let count = 0
    for (const entry of this.#entries) count += entry instanceof DeltaRun ? entry.count : 1
    return count
  }

  /** How many deltas the last entry holds, when it is a DeltaRun (-1 otherwise). */
  lastRunCount(): number {
    const last = this.#entries[this.#entries.length - 1]
    return last instanceof DeltaRun ? last.count : -1
  }

  /** Appends `event`, whose seq is above every stored one: a delta continues the last DeltaRun or starts one. */
  append(event: AgentEvent, copy: (event: AgentEvent) => AgentEvent): void {
    const entries = this.#entries
    if (!isPlainDelta(event)) {
      entries.push(copy(event))
      return
    }
    const last = entries[entries.length - 1]
    if (last instanceof DeltaRun && last.continuedBy(event)) {
      last.push(event.delta, event.timestamp)
      return
    }
    const run = new DeltaRun(event.type, event.step, event.runId, event.sessionId, event.parentRunId, event.seq)
    run.push(event.delta, event.timestamp)
    entries.push(run)
  }

  /** Back to `size` entries, the last one (a DeltaRun when `lastRunCount` ≥ 0) holding `lastRunCount` deltas. */
  truncate(size: number, lastRunCount: number): void {
    const entries = this.#entries
    entries.length = Math.max(0, size)
    const last = entries[entries.length - 1]
    if (lastRunCount >= 0 && last instanceof DeltaRun) last.truncate(lastRunCount)
  }

  /** Inserts a copied event at its seq (out of order); false when that seq is stored already. */
  insert(event: AgentEvent): boolean {
    const entries = this.#entries
    const at = this.#indexAfter(event.seq)
    if (at > 0 && lastSeqOf(entries[at - 1]!) >= event.seq) return false
    entries.splice(at, 0, event)
    return true
  }

  /** Takes back events `insert` added. */
  remove(added: ReadonlySet<AgentEvent>): void {
    const entries = this.#entries
    for (let index = entries.length - 1; index >= 0; index--) if (added.has(entries[index] as AgentEvent)) entries.splice(index, 1)
  }

  /** Copies of the events after seq `after`, at most `limit`. */
  read(after: number | undefined, limit: number | undefined): AgentEvent[] {
    const entries = this.#entries
    const out: AgentEvent[] = []
    // A fractional limit is cut down, as `slice` does in the other memory stores (1.5 events: 1).
    let remaining = limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(limit))
    let index = after === undefined ? 0 : this.#indexAfter(after)
    // The entry before may be a DeltaRun that goes on past `after`.
    if (after !== undefined && index > 0 && lastSeqOf(entries[index - 1]!) > after) index--
    for (; index < entries.length && remaining > 0; index++) {
      const entry = entries[index]!
      if (entry instanceof DeltaRun) {
        const from = after === undefined ? 0 : Math.max(0, after - entry.firstSeq + 1)
        const to = Math.min(entry.count, from + remaining)
        entry.events(from, to, out)
        remaining -= to - from
      } else {
        out.push(cloneValue(entry))
        remaining--
      }
    }
    return out
  }

  /** The index of the first entry whose first seq is above `seq`. */
  #indexAfter(seq: number): number {
    const entries = this.#entries
    let low = 0
    let high = entries.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (firstSeqOf(entries[middle]!) > seq) high = middle
      else low = middle + 1
    }
    return low
  }
}

// The run's events between two commits, in seq order. A streamed answer's deltas are kept as strings and
// timestamps, not as the event objects the stream got: a step of 10,000 deltas held 10,000 objects until its
// commit, and every young-generation collection of the step copied them (the objects delivered die young instead).
// The commit gets the events rebuilt (`take`), equal to the ones delivered.
import type { AgentEvent } from '../spec/events.js'

/** Consecutive deltas of one type and step, with consecutive seqs (a literal: see util/fast-path.ts). */
export interface Deltas {
  readonly kind: typeof deltasKind
  readonly type: 'text.delta' | 'reasoning.delta'
  readonly step: number
  readonly firstSeq: number
  readonly deltas: string[]
  readonly timestamps: number[]
}

/** Tells a Deltas from an event (no event has a `kind`). */
const deltasKind = Symbol('deltas')

function isDeltas(entry: AgentEvent | Deltas): entry is Deltas {
  return (entry as Deltas).kind === deltasKind
}

/**
 * A run's events between two commits. Built by `eventBuffer()` as one literal, its methods included: a class
 * instance's hidden class dies at a full GC when no run is alive, and the code compiled against it (util/fast-path.ts).
 */
export class EventBuffer {
  declare readonly runId: string
  declare readonly sessionId: string
  declare readonly parentRunId: string | undefined
  declare entries: Array<AgentEvent | Deltas>
  /** The events held (a Deltas counts for its deltas). */
  declare length: number
  /** Whether an entry is a Deltas. */
  declare hasDeltas: boolean

  push(event: AgentEvent): void {
    this.entries.push(event)
    this.length++
  }

  /** A delta event, as `{ type, step, delta, runId, sessionId, seq, timestamp, parentRunId? }`. */
  pushDelta(type: 'text.delta' | 'reasoning.delta', step: number, delta: string, seq: number, timestamp: number): void {
    const entries = this.entries
    const last = entries[entries.length - 1]
    let run: Deltas
    if (last !== undefined && isDeltas(last) && last.type === type && last.step === step && last.firstSeq + last.deltas.length === seq) run = last
    else {
      run = { kind: deltasKind, type, step, firstSeq: seq, deltas: [], timestamps: [] }
      entries.push(run)
      this.hasDeltas = true
    }
    run.deltas.push(delta)
    run.timestamps.push(timestamp)
    this.length++
  }

  /** Every event held, in order (rebuilt), and an empty buffer. */
  take(): AgentEvent[] {
    const entries = this.entries
    this.entries = []
    this.length = 0
    // Mostly no deltas: the entries are the events.
    if (!this.hasDeltas) return entries as AgentEvent[]
    this.hasDeltas = false
    const events: AgentEvent[] = []
    const { runId, sessionId, parentRunId } = this
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!
      if (!isDeltas(entry)) {
        events.push(entry)
        continue
      }
      const { type, step, firstSeq, deltas, timestamps } = entry
      for (let at = 0; at < deltas.length; at++) {
        const event = { type, step, delta: deltas[at]!, runId, sessionId, seq: firstSeq + at, timestamp: timestamps[at]! } as AgentEvent
        if (parentRunId) event.parentRunId = parentRunId
        events.push(event)
      }
    }
    return events
  }

  /** Puts events taken back in front (a commit that failed wrote none of them). */
  restore(events: AgentEvent[]): void {
    if (events.length === 0) return
    this.entries = this.entries.length ? (events as Array<AgentEvent | Deltas>).concat(this.entries) : events
    this.length += events.length
  }
}

const methods = EventBuffer.prototype

/** An empty buffer for one run's events. */
export function eventBuffer(runId: string, sessionId: string, parentRunId: string | undefined): EventBuffer {
  return {
    runId,
    sessionId,
    parentRunId,
    entries: [],
    length: 0,
    hasDeltas: false,
    push: methods.push,
    pushDelta: methods.pushDelta,
    take: methods.take,
    restore: methods.restore,
  }
}

// The run's events between two commits, in seq order. A streamed answer's deltas are kept as strings and
// timestamps, not as the event objects the stream got: a step of 10,000 deltas held 10,000 objects until its
// commit, and every young-generation collection of the step copied them (the objects delivered die young instead).
// The commit gets the events rebuilt (`take`), equal to the ones delivered.
import type { AgentEvent } from '../spec/events.js'

/** Consecutive deltas of one type and step, with consecutive seqs. */
class Deltas {
  readonly deltas: string[] = []
  readonly timestamps: number[] = []

  constructor(
    readonly type: 'text.delta' | 'reasoning.delta',
    readonly step: number,
    readonly firstSeq: number,
  ) {}
}

export class EventBuffer {
  #entries: Array<AgentEvent | Deltas> = []
  /** The events held (a Deltas counts for its deltas). */
  #count = 0
  /** Whether an entry is a Deltas. */
  #deltas = false

  constructor(
    readonly runId: string,
    readonly sessionId: string,
    readonly parentRunId: string | undefined,
  ) {}

  get length(): number {
    return this.#count
  }

  push(event: AgentEvent): void {
    this.#entries.push(event)
    this.#count++
  }

  /** A delta event, as `{ type, step, delta, runId, sessionId, seq, timestamp, parentRunId? }`. */
  pushDelta(type: 'text.delta' | 'reasoning.delta', step: number, delta: string, seq: number, timestamp: number): void {
    const entries = this.#entries
    const last = entries[entries.length - 1]
    let run: Deltas
    if (last instanceof Deltas && last.type === type && last.step === step && last.firstSeq + last.deltas.length === seq) run = last
    else {
      run = new Deltas(type, step, seq)
      entries.push(run)
      this.#deltas = true
    }
    run.deltas.push(delta)
    run.timestamps.push(timestamp)
    this.#count++
  }

  /** Every event held, in order (rebuilt), and an empty buffer. */
  take(): AgentEvent[] {
    const entries = this.#entries
    this.#entries = []
    this.#count = 0
    // Mostly no deltas: the entries are the events.
    if (!this.#deltas) return entries as AgentEvent[]
    this.#deltas = false
    const events: AgentEvent[] = []
    const { runId, sessionId, parentRunId } = this
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!
      if (!(entry instanceof Deltas)) {
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
    this.#entries = this.#entries.length ? (events as Array<AgentEvent | Deltas>).concat(this.#entries) : events
    this.#count += events.length
  }
}

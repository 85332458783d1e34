// A run's events: numbered, redacted, buffered for the run's event log, and delivered live (the lossless stream,
// the broadcast bus, the observers) once their numbers are reserved durably.
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { ModelResponseInfo } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import { notifyObservers } from '../observability/runtime-observer.js'
import { streamRedaction, type StreamRedaction } from '../observability/stream-redaction.js'
import { eventBuffer, type EventBuffer } from './event-buffer.js'
import { untilAborted } from './model-step.js'
import type { RunContext } from './run-context.js'
import { seqReservation, type SeqReservation } from './seq-reservation.js'

export type DeltaType = 'text.delta' | 'reasoning.delta'

/**
 * A run's events: numbered, redacted, buffered for the commit that logs them, and delivered live once reserved.
 * Built by `runEvents()` as one literal, its methods included: a class instance's hidden class dies at a full GC when
 * no run is alive, and the code compiled against it (see util/fast-path.ts).
 */
export class RunEvents {
  /** The last event number taken. */
  declare seq: number
  /** The events since the last commit (the commit logs them). */
  declare readonly buffer: EventBuffer
  /** Event numbers reserved durably before live delivery (a crash never lets a resume reuse one). */
  declare readonly seqs: SeqReservation
  /** Set once the run was ended without its model call (a provider that ignored the abort): that call's events are dropped. */
  declare modelSilenced: boolean
  declare readonly run: RunContext
  /** The part of the stream the redaction holds back, and which part it belongs to. */
  declare streamRedaction: StreamRedaction | undefined
  declare deltaType: DeltaType
  declare deltaStep: number

  // The callbacks a run hands out are methods bound once per run, not arrow functions in fields: a closure created
  // per run gets its optimized code from a cache V8 empties at each major GC (see util/fast-path.ts).

  /** Emits one event: to the lossless stream, the broadcast bus, and the buffer flushed to the run's event log. */
  declare readonly emit: (payload: AgentEventPayload | AgentEvent) => void
  /** A text or reasoning delta, the most frequent event. */
  declare readonly emitDelta: (type: DeltaType, step: number, delta: string) => void
  /** The model call's events: none once the run was ended without it. */
  declare readonly emitFromModel: (payload: AgentEventPayload | AgentEvent) => void
  /** Back-pressure of the run's stream: a promise while its consumer is behind. */
  declare readonly whenWritable: () => Promise<void> | undefined
  /** Where a nested agent's events go: into this run's stream, with its back-pressure. */
  declare readonly forwardNested: (event: AgentEvent) => void | Promise<void>

  emitNow(payload: AgentEventPayload | AgentEvent): void {
    // Every caller passes a fresh literal, so it becomes the event in place (a spread of payloads of a dozen shapes
    // was a measurable share of a step); the events of every step are literals that already hold the placeholders
    // `runId`, `sessionId`, `seq` and `timestamp`, set here (a field added later goes out of the object).
    const event = this.stamp(payload)
    this.buffer.push(event)
    this.deliver(event)
  }

  /** A step's `step.finished`: with who answered its model call when the provider said (two literals, one shape each). */
  emitStepFinished(step: number, usage: Usage, finishReason: string, durationMs: number, response: ModelResponseInfo | undefined): void {
    if (response === undefined) {
      this.emitNow({ type: 'step.finished', step, usage, finishReason, durationMs, runId: '', sessionId: '', seq: 0, timestamp: 0 })
      return
    }
    this.emitNow({ type: 'step.finished', step, usage, finishReason, durationMs, response, runId: '', sessionId: '', seq: 0, timestamp: 0 })
  }

  emitFromModelNow(payload: AgentEventPayload | AgentEvent): void {
    if (!this.modelSilenced) this.emitNow(payload)
  }

  /**
   * With a redactor, the delta goes through the run's stream redaction (a secret's characters are held back until
   * the secret is whole): what it lets out, redacted, becomes the event, or nothing yet.
   */
  emitDeltaNow(type: DeltaType, step: number, delta: string): void {
    if (this.modelSilenced) return
    const { redactor } = this.run.deps
    if (!redactor) return this.sendDelta(type, step, delta)
    if (type !== this.deltaType || step !== this.deltaStep) {
      this.flushDeltas()
      this.deltaType = type
      this.deltaStep = step
    }
    const sent = (this.streamRedaction ??= streamRedaction(redactor)).push(delta)
    if (sent) this.sendDelta(type, step, sent)
  }

  /** Sends the text held back (before any other event, so that the order of events stays the model's). */
  flushDeltas(): void {
    const sent = this.streamRedaction?.flush()
    if (sent) this.sendDelta(this.deltaType, this.deltaStep, sent)
  }

  /** Built whole in one literal (no added keys); already redacted. */
  sendDelta(type: DeltaType, step: number, delta: string): void {
    const seq = ++this.seq
    const timestamp = Date.now()
    const run = this.run
    const event = { type, step, delta, runId: run.runId, sessionId: run.sessionId, seq, timestamp } as AgentEvent
    if (run.init.parentRunId) event.parentRunId = run.init.parentRunId
    // The buffer keeps the delta, not the object: the commit logs an equal event rebuilt from it.
    this.buffer.pushDelta(type, step, delta, seq, timestamp)
    this.deliver(event)
  }

  /** Hands an event on once its seq is reserved durably (see SeqReservation). */
  deliver(event: AgentEvent): void {
    this.seqs.deliver(event)
  }

  /** Hands an event to the stream, the bus and the observers (the log gets it from the buffer or a commit). */
  deliverNow(event: AgentEvent): void {
    const { deps, init } = this.run
    init.channel?.push(event)
    try {
      deps.bus.publish(event)
    } catch {
      // The broadcast is a live channel that may drop (the run's log is the authoritative one): its failure never
      // breaks a run, nor turns a tool call that ran into a failure.
    }
    notifyObservers(deps.observers, event)
  }

  /** An event stamped like `emit` does (seq taken, redacted) but neither buffered nor delivered yet. */
  stamp(payload: AgentEventPayload): AgentEvent {
    if (this.streamRedaction?.holding()) this.flushDeltas()
    const run = this.run
    const raw = payload as AgentEvent
    raw.runId = run.runId
    raw.sessionId = run.sessionId
    raw.seq = ++this.seq
    raw.timestamp = Date.now()
    if (run.init.parentRunId) raw.parentRunId = run.init.parentRunId
    return run.deps.redactor ? run.deps.redactor.redactEvent(raw) : raw
  }

  whenWritableNow(): Promise<void> | undefined {
    return this.run.init.channel?.whenWritable()
  }

  forwardNestedNow(event: AgentEvent): void | Promise<void> {
    const { channel, signal } = this.run.init
    if (!channel) return
    channel.push(event)
    const pressure = channel.whenWritable()
    return pressure ? untilAborted(pressure, signal) : undefined
  }
}

const methods = RunEvents.prototype

/** The events of the run `run`, numbered on from its state's. */
export function runEvents(run: RunContext): RunEvents {
  const { state } = run
  const events: RunEvents = {
    seq: state.eventSeq,
    buffer: eventBuffer(state.runId, state.sessionId, run.init.parentRunId || undefined),
    seqs: undefined as never,
    modelSilenced: false,
    run,
    streamRedaction: undefined,
    deltaType: 'text.delta',
    deltaStep: 0,
    emit: undefined as never,
    emitDelta: undefined as never,
    emitFromModel: undefined as never,
    whenWritable: undefined as never,
    forwardNested: undefined as never,
    emitNow: methods.emitNow,
    emitStepFinished: methods.emitStepFinished,
    emitFromModelNow: methods.emitFromModelNow,
    emitDeltaNow: methods.emitDeltaNow,
    flushDeltas: methods.flushDeltas,
    sendDelta: methods.sendDelta,
    deliver: methods.deliver,
    deliverNow: methods.deliverNow,
    stamp: methods.stamp,
    whenWritableNow: methods.whenWritableNow,
    forwardNestedNow: methods.forwardNestedNow,
  }
  const writable = events as { -readonly [K in keyof RunEvents]: RunEvents[K] }
  writable.seqs = seqReservation(state.reservedSeq ?? 0, events.deliverNow.bind(events), (snapshot) =>
    run.writer.commit([{ type: 'snapshot.save', snapshot }], true),
  )
  writable.emit = events.emitNow.bind(events)
  writable.emitDelta = events.emitDeltaNow.bind(events)
  writable.emitFromModel = events.emitFromModelNow.bind(events)
  writable.whenWritable = events.whenWritableNow.bind(events)
  writable.forwardNested = events.forwardNestedNow.bind(events)
  return events
}

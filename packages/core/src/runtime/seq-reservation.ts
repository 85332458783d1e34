// Event numbers reserved durably before they are delivered live. Live events run ahead of the run's event log
// (it is written once per step); a crash must never let a later attempt give a number already delivered another
// meaning. So every snapshot carries `reservedSeq`, the highest seq this run may deliver, and an event above it
// waits until a bump (the last snapshot saved again with a higher reservation) is written. A resume continues
// above the reservation and declares what its log lacks below it (`run.resumed.discarded`).
import type { RunSnapshot } from '../spec/snapshot-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { RunState } from './run-state.js'

/** The least a snapshot reserves beyond its own seq, and the most. */
const minimumBlock = 64
const maximumBlock = 4_096

/**
 * A run's event-number reservation. Built by `seqReservation()` as one literal, its methods included: a class
 * instance's hidden class dies at a full GC when no run is alive, and the code compiled against it (util/fast-path.ts).
 */
export class SeqReservation {
  declare readonly deliverNow: (event: AgentEvent) => void
  declare readonly writeSnapshot: (snapshot: RunSnapshot) => Promise<unknown>
  /** Events may be delivered up to here (the durable reservation: no event above it was delivered). */
  declare durable: number
  /** The highest reservation asked for (a snapshot or a bump, written or in flight): later snapshots reserve at least this. */
  declare requested: number
  /** Events over the durable reservation, in order, waiting for it. */
  declare held: AgentEvent[]
  /** The last snapshot written, which a bump saves again with a higher reservation. */
  declare lastSnapshot: RunSnapshot | undefined
  /** A snapshot built and not yet written (committed or failed). */
  declare pending: RunSnapshot | undefined
  /** Whether a snapshot commit is in flight (a run's snapshot commits never overlap: the loop awaits each). */
  declare snapshotInFlight: boolean
  declare bumping: boolean
  /** The seq of the last snapshot's own event: the step in progress has emitted the events above it. */
  declare stepBase: number

  /** A resumed run's loaded snapshot: what a bump saves again until this attempt writes its own. */
  restore(snapshot: RunSnapshot | undefined): void {
    this.lastSnapshot = snapshot
  }

  /** Delivers the event now if its seq is reserved, else holds it (in order) until a bump or a snapshot reserves it. */
  deliver(event: AgentEvent): void {
    if (this.held.length === 0 && event.seq <= this.durable) return this.deliverNow(event)
    this.held.push(event)
    this.bump(event.seq)
  }

  /** Sets the reservation of a snapshot being built (`state.eventSeq` is its own event's seq). */
  reserve(state: RunState): void {
    const seq = state.eventSeq
    const block = Math.min(maximumBlock, Math.max(minimumBlock, 2 * (seq - this.stepBase)))
    this.stepBase = seq
    this.requested = Math.max(this.requested, seq + block)
    state.reservedSeq = this.requested
  }

  /** A snapshot built for a commit (its state reserved by `reserve`). */
  built(snapshot: RunSnapshot): void {
    this.pending = snapshot
    this.snapshotInFlight = true
  }

  /** The commit of the snapshot built last was written: its reservation holds. */
  committed(): void {
    const snapshot = this.pending
    this.snapshotInFlight = false
    if (snapshot === undefined) return
    this.pending = undefined
    this.lastSnapshot = snapshot
    this.durable = Math.max(this.durable, (snapshot.state as { reservedSeq?: number }).reservedSeq ?? 0)
    this.release()
  }

  /** The commit of the snapshot built last failed: nothing it reserved holds. */
  failed(): void {
    this.pending = undefined
    this.snapshotInFlight = false
  }

  /**
   * The run ended (its last commit made, or failed): what is held is delivered, so that a stream ends with its
   * terminal event. A run that ended has no later attempt to give those numbers another meaning.
   */
  releaseAll(): void {
    const held = this.held
    this.held = []
    for (const event of held) this.deliverNow(event)
  }

  /** The run lost its lease: another process continues it above the durable reservation, so nothing held goes out. */
  dropHeld(): void {
    this.held = []
  }

  /** Delivers what the durable reservation now covers; bumps for the rest. */
  release(): void {
    let index = 0
    const held = this.held
    while (index < held.length && held[index]!.seq <= this.durable) this.deliverNow(held[index++]!)
    if (index > 0) this.held = index === held.length ? [] : held.slice(index)
    if (this.held.length) this.bump(this.held[this.held.length - 1]!.seq)
  }

  /**
   * Saves the last written snapshot again with a reservation above `seq`. Not while a snapshot commit is in flight:
   * it would land after that newer snapshot (or write a state that commit may fail to write); that commit reserves.
   */
  bump(seq: number): void {
    if (this.bumping || this.snapshotInFlight || this.lastSnapshot === undefined) return
    const block = Math.min(maximumBlock, Math.max(minimumBlock, 2 * (seq - this.stepBase)))
    const reservedSeq = Math.max(this.requested, seq + block)
    this.requested = reservedSeq
    const last = this.lastSnapshot
    const snapshot: RunSnapshot = { ...last, state: { ...last.state, reservedSeq }, createdAt: Date.now() }
    this.bumping = true
    this.writeSnapshot(snapshot).then(
      () => {
        this.bumping = false
        if (this.lastSnapshot === last) this.lastSnapshot = snapshot
        this.durable = Math.max(this.durable, reservedSeq)
        this.release()
      },
      () => {
        // Not written: the events wait for the step's snapshot, whose reservation covers them.
        this.bumping = false
      },
    )
  }
}

const methods = SeqReservation.prototype

/** The reservation of a run whose snapshot reserved up to `reserved`. */
export function seqReservation(
  reserved: number,
  deliverNow: (event: AgentEvent) => void,
  writeSnapshot: (snapshot: RunSnapshot) => Promise<unknown>,
): SeqReservation {
  return {
    deliverNow,
    writeSnapshot,
    durable: reserved,
    requested: reserved,
    held: [],
    lastSnapshot: undefined,
    pending: undefined,
    snapshotInFlight: false,
    bumping: false,
    stepBase: reserved,
    restore: methods.restore,
    deliver: methods.deliver,
    reserve: methods.reserve,
    built: methods.built,
    committed: methods.committed,
    failed: methods.failed,
    releaseAll: methods.releaseAll,
    dropHeld: methods.dropHeld,
    release: methods.release,
    bump: methods.bump,
  }
}

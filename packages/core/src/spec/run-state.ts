// RunState, spec v1: everything needed to continue a run, small and JSON-serializable: the payload a snapshot
// stores (`RunSnapshot.state`), which a SnapshotStore keeps as it is.
import type { JsonValue } from './json.js'
import type { Usage } from './messages.js'
import type { FinishReason } from './run-store.js'
import type { RunError } from './run-error.js'

/** A tool call of the last assistant message, not yet answered by a tool message. */
export interface PendingCall {
  callId: string
  /** The name the model called. */
  toolName: string
  /** Parsed arguments, or the raw text when `argsError` is set. */
  args: JsonValue
  argsError?: string
  /** `required` suspends the run until `approve()`; the decision is recorded with a hash of the arguments. */
  approval?: 'required' | 'approved' | 'denied'
  argsHash?: string
  reason?: string
}

/** A run's state between two steps (see the file comment). */
export interface RunState {
  version: 1
  runId: string
  sessionId: string
  /** Model calls completed. */
  step: number
  phase: 'model' | 'tools' | 'done'
  toolCalls: number
  usage: Usage
  /** Tool calls of the last assistant message, not yet answered by a tool message. */
  pending: PendingCall[]
  lengthContinuations: number
  /** The final answer so far (length continuations append to it). */
  text: string
  lastCallSignature?: string
  repeatCount: number
  /**
   * Doom-loop cycles (A, B, A, B…): the signatures of the two steps before the last, and for a cycle of two and of
   * three calls how many steps in a row repeated the step two (three) before them.
   */
  callSignature2?: string
  callSignature3?: string
  cycleRun2?: number
  cycleRun3?: number
  finishReason?: FinishReason
  error?: RunError
  /** The agent running the run, when a handoff moved it away from the agent it started with. */
  agent?: string
  /** Last event seq emitted. */
  eventSeq: number
  /**
   * The highest event seq this run may have delivered live (reserved durably before delivery): a resume continues
   * above it and declares what its log lacks below it as discarded. Absent in snapshots written before it existed.
   */
  reservedSeq?: number
  /** First session-log seq written by this run. */
  firstSeq: number
  /** Last session-log seq this state accounts for. */
  lastSeq: number
}

// AgentEvent: the discriminated union every run emits, lossless per run and broadcast to subscribers.
import type { JsonValue } from './json.js'
import type { ModelResponseInfo } from './language-model.js'
import type { Usage } from './messages.js'
import type { FinishReason } from './run-store.js'
import type { RunError } from './run-error.js'

interface EventBase {
  runId: string
  sessionId: string
  /**
   * 1, 2, 3… per run: only grows, and never changes meaning once delivered. The log has a hole only where a
   * `run.resumed` declares one (`discarded`): numbers a crashed attempt may have published live that its log never got.
   */
  seq: number
  /** Milliseconds since the epoch. */
  timestamp: number
  /** For a sub-agent's events nested in a parent's stream: the parent's run id. */
  parentRunId?: string
}

/** The payload of every event a run emits, by `type`. */
export type AgentEventPayload =
  | { type: 'run.started'; agent: string; modelId: string; input: JsonValue; gateWaitMs?: number; queueWaitMs?: number }
  /**
   * `agent` and `modelId` (optional, added later) let an observer describe a run resumed in another process.
   * `discarded` (when present): the seqs `from`…`to` (inclusive) that the crashed attempt reserved, may have delivered
   * live, and never logged. They appear nowhere else: a subscriber drops any event it holds in that range (the
   * interrupted step is redone, its events follow with new seqs).
   */
  | { type: 'run.resumed'; fromStep: number; agent?: string; modelId?: string; gateWaitMs?: number; discarded?: { from: number; to: number } }
  | { type: 'step.started'; step: number }
  | { type: 'text.delta'; step: number; delta: string }
  | { type: 'reasoning.delta'; step: number; delta: string }
  | { type: 'tool.call'; step: number; callId: string; toolName: string; args: JsonValue }
  /** `toolName` is the name the model called; `toolId` the tool's identity (its `id`, e.g. `excel.preview`), as in the journal. */
  | { type: 'tool.started'; step: number; callId: string; toolName: string; toolId?: string }
  | { type: 'tool.result'; step: number; callId: string; toolName: string; toolId?: string; result: JsonValue; durationMs: number; reused?: boolean }
  /** `toolId` is absent when the call reached no tool (an unknown name, arguments refused before it). */
  | { type: 'tool.error'; step: number; callId: string; toolName: string; toolId?: string; error: { code: string; message: string }; durationMs: number }
  | { type: 'approval.requested'; step: number; callId: string; toolName: string; args: JsonValue }
  | { type: 'agent.handoff'; step: number; from: string; to: string; callId: string }
  | { type: 'compaction.applied'; step: number; strategy: string; throughSeq: number; tokensBefore: number; tokensAfter: number }
  /** The compaction strategy failed (its error redacted); truncation was used instead. `circuitOpen`: it is bypassed for a while. */
  | { type: 'compaction.failed'; step: number; strategy: string; error: { code: string; message: string }; circuitOpen: boolean }
  | { type: 'snapshot.saved'; step: number; version: number }
  /**
   * A step's end. `response`: the model call's response as its provider reported it (response id, the provider and
   * model that answered, which may differ from the requested ones, e.g. in a fallback chain or behind an alias);
   * absent when the provider reported none, or for a step whose model call happened before a resume. `usage`: the
   * run's running total so far, not the step's own. A step suspended for approval finishes twice: at the suspension,
   * and again once the resumed run has run its tools (same `step`, same or higher totals).
   */
  | { type: 'step.finished'; step: number; usage: Usage; finishReason: string; durationMs: number; response?: ModelResponseInfo }
  /** `error`: why a run that did not reach its answer stopped (`timeout`, a `policy` such as a doom loop), as on its record. */
  | { type: 'run.finished'; finishReason: FinishReason; text: string; usage: Usage; steps: number; error?: RunError }
  | { type: 'run.failed'; finishReason: 'error'; error: RunError; usage: Usage; steps: number }

/** The `type` of an event (`run.started`, `text.delta`, `tool.result`, `run.finished`…). */
export type AgentEventType = AgentEventPayload['type']

type Distribute<P> = P extends unknown ? P & EventBase : never
/** An event of a run: its payload plus `runId`, `sessionId`, `seq` (only grows) and `timestamp`. `stream()` yields every one; `subscribe()` may skip some and say so with a `LaggedEvent`. */
export type AgentEvent = Distribute<AgentEventPayload>
/** The event of one type: `AgentEventOf<'tool.result'>`. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>

/** Sent to a subscriber that fell behind: it lost `missed` events (catch up from `RunStore.listEvents`). */
export interface LaggedEvent {
  type: 'lagged'
  missed: number
  timestamp: number
}

/** The event types that end a run: `run.finished` and `run.failed`; exactly one of them ends every run. */
export const terminalEventTypes = new Set<AgentEventType>(['run.finished', 'run.failed'])

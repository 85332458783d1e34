// RunState: everything needed to continue a run, small and JSON-serializable (the snapshot payload).
import type { JsonValue } from '../spec/json.js'
import type { ModelMessage, Usage } from '../spec/messages.js'
import type { FinishReason } from '../spec/run-store.js'
import type { RunError } from '../spec/run-error.js'

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

/**
 * A copy of the state with `patch` applied. Every field is written out (optional ones as undefined), so all
 * states share one shape: V8 (Node 20) takes a slow path of several microseconds for an object spread
 * followed by a key the source lacks (`{ ...state, error }`), which the loop did several times a step.
 */
export function withState(state: RunState, patch: Partial<RunState>): RunState {
  return Object.assign(copyState(state), patch)
}

/**
 * A copy of the state with every field (see `withState`), for the loop's own updates: it sets the fields it
 * changes on the copy, where a patch object per update cost an allocation and a slower `Object.assign`.
 */
export function copyState(state: RunState): RunState {
  return {
    version: 1,
    runId: state.runId,
    sessionId: state.sessionId,
    step: state.step,
    phase: state.phase,
    toolCalls: state.toolCalls,
    usage: state.usage,
    pending: state.pending,
    lengthContinuations: state.lengthContinuations,
    text: state.text,
    lastCallSignature: state.lastCallSignature,
    repeatCount: state.repeatCount,
    callSignature2: state.callSignature2,
    callSignature3: state.callSignature3,
    cycleRun2: state.cycleRun2,
    cycleRun3: state.cycleRun3,
    finishReason: state.finishReason,
    error: state.error,
    agent: state.agent,
    eventSeq: state.eventSeq,
    reservedSeq: state.reservedSeq,
    firstSeq: state.firstSeq,
    lastSeq: state.lastSeq,
  }
}

/**
 * The run's answer so far (`RunState.text`) rebuilt from the messages it wrote, in order: an assistant message
 * with tool calls starts it over, one without appends its text (a length continuation). A snapshot stores this
 * text redacted (it is an output channel); the session log keeps it as the model wrote it.
 */
export function answerText(messages: readonly ModelMessage[]): string {
  let text = ''
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    let calls = false
    let added = ''
    for (const part of message.content) {
      if (part.type === 'tool-call') calls = true
      else if (part.type === 'text') added += part.text
    }
    text = calls ? '' : text + added
  }
  return text
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 }
}

export function addUsage(total: Usage, step: Usage | undefined): Usage {
  if (!step) return total
  const sum: Usage = {
    inputTokens: total.inputTokens + (step.inputTokens ?? 0),
    outputTokens: total.outputTokens + (step.outputTokens ?? 0),
  }
  const cached = (total.cachedInputTokens ?? 0) + (step.cachedInputTokens ?? 0)
  if (cached) sum.cachedInputTokens = cached
  const reasoning = (total.reasoningTokens ?? 0) + (step.reasoningTokens ?? 0)
  if (reasoning) sum.reasoningTokens = reasoning
  const cost = (total.costUsd ?? 0) + (step.costUsd ?? 0)
  if (cost) sum.costUsd = cost
  sum.totalTokens = sum.inputTokens + sum.outputTokens
  return sum
}

export function initialRunState(runId: string, sessionId: string, firstSeq: number): RunState {
  return {
    version: 1,
    runId,
    sessionId,
    step: 0,
    phase: 'model',
    toolCalls: 0,
    usage: emptyUsage(),
    pending: [],
    lengthContinuations: 0,
    text: '',
    repeatCount: 0,
    eventSeq: 0,
    firstSeq,
    lastSeq: firstSeq,
  } satisfies RunState
}

// RunState helpers: copies that keep one object shape, the answer rebuilt from the log, the initial state.
// The types themselves are the snapshot payload's, in spec/run-state.ts.
import type { ModelMessage } from '../spec/messages.js'
import type { RunState } from '../spec/run-state.js'
import { emptyUsage } from '../util/usage.js'

export type { PendingCall, RunState } from '../spec/run-state.js'
export { addUsage, emptyUsage } from '../util/usage.js'

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

/** The state of a run about to take its first step; its session entries start at `firstSeq`. */
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

// How a resumed run continues its event log: above every number the crashed attempt may have delivered live
// (its durable reservation), declaring the ones its log never got, and re-announcing the step the crash
// interrupted, so that the log announces every call it answers.
import type { AgentEvent, AgentEventPayload } from '../spec/events.js'
import type { ModelMessage } from '../spec/messages.js'
import type { RunState } from './run-state.js'

/** The seqs a crashed attempt may have delivered live and its log never got (inclusive). */
export interface DiscardedRange {
  from: number
  to: number
}

/**
 * Sets where a resumed run's numbering continues: above the last logged event and above the reservation of the
 * crashed attempt (`state.reservedSeq`). `logged` is the run's log from the snapshot's own event on (`state.eventSeq
 * - 1` exclusive). Returns the range the resume's `run.resumed` declares discarded, if any.
 */
export function continueNumbering(state: RunState, logged: readonly AgentEvent[]): DiscardedRange | undefined {
  const lastLogged = logged.length ? logged[logged.length - 1]!.seq : Math.max(0, state.eventSeq - 1)
  const reserved = state.reservedSeq ?? 0
  state.eventSeq = Math.max(lastLogged, reserved)
  state.reservedSeq = state.eventSeq
  return reserved > lastLogged ? { from: lastLogged + 1, to: reserved } : undefined
}

/** What `announceInterruptedStep` needs of a run's execution. */
export interface AnnouncingExecution {
  readonly state: RunState
  readonly messages: readonly ModelMessage[]
  emit(payload: AgentEventPayload | AgentEvent): void
  emitDelta(type: 'text.delta' | 'reasoning.delta', step: number, delta: string): void
}

/**
 * After a replay that found the interrupted step's answer in the session log (its calls pending, their events
 * never logged: they were delivered live, then discarded by the crash), logs that step again: `step.started`, its
 * text as one delta, and a `tool.call` per call the resume is about to answer.
 */
export function announceInterruptedStep(execution: AnnouncingExecution): void {
  const { state } = execution
  if (state.phase !== 'tools' || state.pending.length === 0) return
  const step = state.step
  execution.emit({ type: 'step.started', step } as AgentEventPayload)
  let answer: ModelMessage | undefined
  for (let index = execution.messages.length - 1; index >= 0 && answer === undefined; index--) {
    if (execution.messages[index]!.role === 'assistant') answer = execution.messages[index]
  }
  if (answer?.role === 'assistant') {
    let text = ''
    for (const part of answer.content) if (part.type === 'text') text += part.text
    if (text) execution.emitDelta('text.delta', step, text)
  }
  for (const call of state.pending) {
    execution.emit({ type: 'tool.call', step, callId: call.callId, toolName: call.toolName, args: call.args } as AgentEventPayload)
  }
}

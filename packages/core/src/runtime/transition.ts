// The turn's control flow as a pure function: transition(state, outcome, limits) → { state, next }.
// No I/O here, so every path is testable exhaustively and a snapshot of `state` is enough to resume.
import type { ModelFinishReason } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import type { FinishReason } from '../spec/run-store.js'
import { addUsage, copyState, type PendingCall, type RunState, withState } from './run-state.js'
import type { RunError } from '../spec/run-error.js'

/**
 * The policy limits `transition()` enforces: steps, tool calls, continuations after a `length` finish, the number of
 * repeated calls that counts as a loop, and the token and cost budget.
 */
export interface TransitionLimits {
  maxSteps: number
  maxToolCalls: number
  maxLengthContinuations: number
  doomLoopThreshold: number
  budget: { maxInputTokens?: number; maxOutputTokens?: number; maxTotalTokens?: number; maxCostUsd?: number }
}

/**
 * What happened since the last transition, as `transition()` receives it: start or resume (`continue`), a model
 * call's result, tools executed, an error, an abort (cancel or timeout), or a policy violation.
 */
export type Outcome =
  /** Start or resume: continue from whatever phase the state is in. */
  | { type: 'continue' }
  | { type: 'model'; finishReason: ModelFinishReason; text: string; toolCalls: PendingCall[]; usage: Usage | undefined }
  | { type: 'tools'; executed: number }
  | { type: 'error'; error: RunError }
  | { type: 'aborted'; reason: 'cancelled' | 'timeout' }
  | { type: 'violation'; message: string }

/** What the run does next. The actions without per-call data are shared frozen objects (compare `action`, never identity). */
export type Next =
  | { action: 'call-model'; continuation: boolean }
  | { action: 'run-tools' }
  | { action: 'await-approval' }
  /** `unanswered`: tool calls that must get an error result before the run ends, so the history never holds a call without a result. */
  | { action: 'finish'; reason: FinishReason; unanswered: PendingCall[] }

/**
 * The actions that carry no per-call data, one frozen object each: a step's two transitions allocate no `next`.
 */
const callModel: Next = Object.freeze({ action: 'call-model', continuation: false })
const continueModel: Next = Object.freeze({ action: 'call-model', continuation: true })
const runTools: Next = Object.freeze({ action: 'run-tools' })
const awaitApproval: Next = Object.freeze({ action: 'await-approval' })

/**
 * The result of `transition()`: the run's next state and what the run does next (call the model, run tools, await
 * approval, or finish).
 */
export interface Transition {
  state: RunState
  next: Next
}

/**
 * The agent loop as a pure function: given the run's state, what just happened and the limits, it returns the next
 * state and the next action. It performs no I/O, so the runtime replays it on resume and tests drive it directly.
 * Never throws: a limit reached, an error or an abort is a `finish` action with its reason.
 */
export function transition(state: RunState, outcome: Outcome, limits: TransitionLimits): Transition {
  switch (outcome.type) {
    case 'continue':
      return resumeFrom(state, limits)
    case 'model':
      return afterModel(state, outcome, limits)
    case 'tools': {
      const next = copyState(state)
      next.toolCalls = state.toolCalls + outcome.executed
      next.pending = []
      next.phase = 'model'
      return beforeModel(next, limits, false)
    }
    case 'error':
      return finish(withState(state, { error: outcome.error }), 'error')
    case 'aborted':
      return finish(state, outcome.reason)
    case 'violation':
      return finish(withState(state, { error: { code: 'policy_violation', message: outcome.message } }), 'policy')
  }
}

function resumeFrom(state: RunState, limits: TransitionLimits): Transition {
  if (state.phase === 'done') return { state, next: { action: 'finish', reason: state.finishReason ?? 'stop', unanswered: [] } }
  if (state.phase === 'tools') return beforeTools(state, limits)
  return beforeModel(state, limits, state.lengthContinuations > 0 && state.text.length > 0)
}

function beforeModel(state: RunState, limits: TransitionLimits, continuation: boolean): Transition {
  if (state.step >= limits.maxSteps) return finish(state, 'max_steps')
  if (overBudget(state.usage, limits)) return finish(state, 'budget')
  return { state, next: continuation ? continueModel : callModel }
}

function beforeTools(state: RunState, limits: TransitionLimits): Transition {
  if (state.toolCalls + state.pending.length > limits.maxToolCalls) return finish(state, 'max_tool_calls')
  for (const call of state.pending) if (call.approval === 'required') return { state, next: awaitApproval }
  return { state, next: runTools }
}

function afterModel(state: RunState, outcome: Extract<Outcome, { type: 'model' }>, limits: TransitionLimits): Transition {
  const usage = addUsage(state.usage, outcome.usage)
  const base = copyState(state)
  base.step = state.step + 1
  base.usage = usage
  if (outcome.toolCalls.length) {
    const signature = callSignature(outcome.toolCalls)
    const repeatCount = signature === state.lastCallSignature ? state.repeatCount + 1 : 1
    const withCalls = base
    withCalls.phase = 'tools'
    withCalls.pending = outcome.toolCalls
    withCalls.lastCallSignature = signature
    withCalls.repeatCount = repeatCount
    // For cycles: whether this step repeats the one two (three) steps back, and the signatures shifted by one.
    withCalls.cycleRun2 = signature === state.callSignature2 ? (state.cycleRun2 ?? 0) + 1 : 0
    withCalls.cycleRun3 = signature === state.callSignature3 ? (state.cycleRun3 ?? 0) + 1 : 0
    withCalls.callSignature3 = state.callSignature2
    withCalls.callSignature2 = state.lastCallSignature
    withCalls.text = ''
    if (repeatCount >= limits.doomLoopThreshold) {
      return finish(
        withState(withCalls, { error: { code: 'doom_loop', message: `the model repeated the same tool call ${repeatCount} times in a row` } }),
        'policy',
      )
    }
    const period = cyclePeriod(withCalls, limits.doomLoopThreshold)
    if (period) {
      return finish(
        withState(withCalls, {
          error: { code: 'doom_loop', message: `the model repeated the same cycle of ${period} tool calls ${limits.doomLoopThreshold} times in a row` },
        }),
        'policy',
      )
    }
    if (overBudget(usage, limits)) return finish(withCalls, 'budget')
    return beforeTools(withCalls, limits)
  }
  const text = state.text + outcome.text
  const answered: RunState = Object.assign(base, {
    text,
    pending: [],
    lastCallSignature: undefined,
    repeatCount: 0,
    callSignature2: undefined,
    callSignature3: undefined,
    cycleRun2: 0,
    cycleRun3: 0,
  })
  switch (outcome.finishReason) {
    case 'length':
      if (state.lengthContinuations < limits.maxLengthContinuations && !overBudget(usage, limits) && base.step < limits.maxSteps) {
        return { state: withState(answered, { phase: 'model', lengthContinuations: state.lengthContinuations + 1 }), next: continueModel }
      }
      return finish(answered, 'length')
    case 'content-filter':
      return finish(answered, 'content_filter')
    case 'error':
      return finish(withState(answered, { error: { code: 'provider', message: 'the model finished with an error' } }), 'error')
    default:
      return finish(answered, 'stop')
  }
}

function finish(state: RunState, reason: FinishReason): Transition {
  const unanswered = state.phase === 'tools' ? state.pending : []
  return { state: withState(state, { phase: 'done', finishReason: reason, pending: [] }), next: { action: 'finish', reason, unanswered } }
}

/**
 * Whether a run's usage has reached any budget limit (input, output or total tokens, cost in USD): the run then
 * finishes with `budget`.
 */
export function overBudget(usage: Usage, limits: TransitionLimits): boolean {
  const { budget } = limits
  if (budget.maxInputTokens !== undefined && usage.inputTokens >= budget.maxInputTokens) return true
  if (budget.maxOutputTokens !== undefined && usage.outputTokens >= budget.maxOutputTokens) return true
  if (budget.maxTotalTokens !== undefined && usage.inputTokens + usage.outputTokens >= budget.maxTotalTokens) return true
  if (budget.maxCostUsd !== undefined && (usage.costUsd ?? 0) >= budget.maxCostUsd) return true
  return false
}

/**
 * The period (2 or 3) of a cycle of calls the last steps repeated `threshold` times in a row, or 0: a block of p
 * steps repeated that often means each of its last p × (threshold − 1) steps repeated the step p before it. A block
 * of one call repeated (A, A…) is the plain repeat that `repeatCount` counts.
 */
function cyclePeriod(state: RunState, threshold: number): number {
  if ((state.cycleRun2 ?? 0) >= 2 * (threshold - 1) && state.lastCallSignature !== state.callSignature2) return 2
  if ((state.cycleRun3 ?? 0) >= 3 * (threshold - 1) && !(state.lastCallSignature === state.callSignature2 && state.callSignature2 === state.callSignature3))
    return 3
  return 0
}

/** A short digest of a step's calls (names and arguments): kept in the snapshot, so it stays small and JSON-safe. */
function callSignature(calls: PendingCall[]): string {
  // FNV-1a over the calls' names and arguments, walked in place: a cheap, deterministic fingerprint (a collision
  // only delays doom-loop detection). Was over `JSON.stringify([name, args])`: a string built per step only to be hashed.
  // The calls' digests are added up, so that the same calls in another order are the same step.
  let sum = 0
  for (const call of calls) sum = (sum + hashJson(hashString(fnvOffset, call.toolName), call.args)) | 0
  return (Math.imul(fnvOffset ^ sum, fnvPrime) >>> 0).toString(36) + ':' + calls.length
}

const fnvOffset = 0x811c9dc5
const fnvPrime = 0x01000193
/** A number's eight bytes, hashed as two 32-bit words (no string conversion). */
const numberBits = new Float64Array(1)
const numberWords = new Uint32Array(numberBits.buffer)

function hashString(hash: number, text: string): number {
  hash = Math.imul(hash ^ 0x22, fnvPrime)
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), fnvPrime)
  return hash
}

/** Folds a JSON value into the hash, with a marker per kind so that `["a"]`, `"a"` and `{"a":…}` differ; keys whose value is undefined are skipped, as JSON drops them. */
function hashJson(hash: number, value: unknown): number {
  switch (typeof value) {
    case 'string':
      return hashString(hash, value)
    case 'number':
      numberBits[0] = value
      return Math.imul(Math.imul(hash ^ numberWords[0]!, fnvPrime) ^ numberWords[1]!, fnvPrime)
    case 'boolean':
      return Math.imul(hash ^ (value ? 0x74 : 0x66), fnvPrime)
    case 'object': {
      if (value === null) return Math.imul(hash ^ 0x6e, fnvPrime)
      if (Array.isArray(value)) {
        hash = Math.imul(hash ^ 0x5b, fnvPrime)
        for (let index = 0; index < value.length; index++) hash = hashJson(hash, value[index])
        return Math.imul(hash ^ 0x5d, fnvPrime)
      }
      // Each entry hashed on its own and the digests added up: the same object with its keys in another order
      // (`{a, b}` and `{b, a}`) is the same value.
      const record = value as Record<string, unknown>
      let entries = 0
      for (const key in record) {
        const item = record[key]
        if (item === undefined) continue
        entries = (entries + hashJson(hashString(fnvOffset, key), item)) | 0
      }
      return Math.imul(Math.imul(hash ^ 0x7b, fnvPrime) ^ entries, fnvPrime)
    }
    default:
      return hash
  }
}

import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../spec/json.js'
import type { ModelFinishReason } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import type { FinishReason } from '../spec/run-store.js'
import { initialRunState, type PendingCall, type RunState } from './run-state.js'
import { overBudget, transition, type Next, type Outcome, type TransitionLimits } from './transition.js'

const limits: TransitionLimits = { maxSteps: 5, maxToolCalls: 10, maxLengthContinuations: 2, doomLoopThreshold: 3, budget: {} }

const fresh = (): RunState => initialRunState('run-1', 'session-1', 1)

function call(toolName: string, args: PendingCall['args'] = {}, callId = `${toolName}-${JSON.stringify(args)}`, extra: Partial<PendingCall> = {}): PendingCall {
  return { callId, toolName, args, ...extra }
}

function model(options: { text?: string; toolCalls?: PendingCall[]; finishReason?: ModelFinishReason; usage?: Usage } = {}): Outcome {
  return {
    type: 'model',
    text: options.text ?? '',
    toolCalls: options.toolCalls ?? [],
    finishReason: options.finishReason ?? (options.toolCalls?.length ? 'tool-calls' : 'stop'),
    usage: options.usage ?? { inputTokens: 10, outputTokens: 5 },
  }
}

/** Applies outcomes in order, returning every intermediate transition. */
function play(outcomes: Outcome[], options: { state?: RunState; limits?: TransitionLimits } = {}) {
  let state = options.state ?? fresh()
  const steps: Array<{ state: RunState; next: Next }> = []
  for (const outcome of outcomes) {
    const result = transition(state, outcome, options.limits ?? limits)
    steps.push(result)
    state = result.state
  }
  return { steps, last: steps.at(-1)!, state }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

function expectFinish(next: Next, reason: FinishReason, unanswered: PendingCall[] = []): void {
  expect(next).toEqual({ action: 'finish', reason, unanswered })
}

describe('transition: start and the basic loop', () => {
  it('a fresh run starts by calling the model (not a continuation)', () => {
    const { state, next } = transition(fresh(), { type: 'continue' }, limits)
    expect(next).toEqual({ action: 'call-model', continuation: false })
    expect(state).toEqual(fresh())
  })

  it('a final answer finishes with stop, counting the step, the text and the usage', () => {
    const { last } = play([{ type: 'continue' }, model({ text: 'Hello!', usage: { inputTokens: 12, outputTokens: 3, costUsd: 0.01 } })])
    expectFinish(last.next, 'stop')
    expect(last.state).toMatchObject({
      phase: 'done',
      finishReason: 'stop',
      step: 1,
      text: 'Hello!',
      pending: [],
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15, costUsd: 0.01 },
    })
  })

  it('any other model finish reason without tool calls is a stop as well', () => {
    for (const finishReason of ['stop', 'other', 'tool-calls'] as const) {
      expectFinish(play([model({ text: 'x', finishReason })]).last.next, 'stop')
    }
  })

  it('tool calls move to the tools phase; their results lead back to the model', () => {
    const calls = [call('search', { q: 'a' }), call('read', { path: 'x' })]
    const afterModel = transition(fresh(), model({ text: 'let me look', toolCalls: calls }), limits)
    expect(afterModel.next).toEqual({ action: 'run-tools' })
    expect(afterModel.state).toMatchObject({ phase: 'tools', pending: calls, step: 1, text: '' })
    const afterTools = transition(afterModel.state, { type: 'tools', executed: 2 }, limits)
    expect(afterTools.next).toEqual({ action: 'call-model', continuation: false })
    expect(afterTools.state).toMatchObject({ phase: 'model', pending: [], toolCalls: 2, step: 1 })
  })

  it('a next without per-call data is one shared frozen object (a step allocates none); a finish is its own', () => {
    const first = play([
      { type: 'continue' },
      model({ toolCalls: [call('a')] }),
      { type: 'tools', executed: 1 },
      model({ toolCalls: [call('b')] }),
      { type: 'tools', executed: 1 },
    ])
    const [start, tools1, model1, tools2, model2] = first.steps.map((step) => step.next)
    expect(model1).toBe(start)
    expect(model2).toBe(start)
    expect(tools2).toBe(tools1)
    for (const next of [start, tools1]) expect(Object.isFrozen(next)).toBe(true)
    const finished = play([model({ text: 'a' })]).last.next
    expect(Object.isFrozen(finished)).toBe(false)
    expect(finished).not.toBe(play([model({ text: 'b' })]).last.next)
  })

  it('a three-step run: tool, tool, answer', () => {
    const { steps, state } = play([
      { type: 'continue' },
      model({ toolCalls: [call('a')] }),
      { type: 'tools', executed: 1 },
      model({ toolCalls: [call('b')] }),
      { type: 'tools', executed: 1 },
      model({ text: 'done' }),
    ])
    expect(steps.map((step) => step.next.action)).toEqual(['call-model', 'run-tools', 'call-model', 'run-tools', 'call-model', 'finish'])
    expect(state).toMatchObject({ step: 3, toolCalls: 2, finishReason: 'stop', text: 'done', usage: { inputTokens: 30, outputTokens: 15 } })
  })
})

describe('transition: every finish reason', () => {
  it('max_steps: the model is not called again once maxSteps calls were made', () => {
    const outcomes: Outcome[] = [{ type: 'continue' }]
    for (let i = 0; i < 2; i++) outcomes.push(model({ toolCalls: [call('t', { i })] }), { type: 'tools', executed: 1 })
    const { last, state } = play(outcomes, { limits: { ...limits, maxSteps: 2 } })
    expectFinish(last.next, 'max_steps')
    expect(state.step).toBe(2)
    // The tools of the last allowed step still ran: nothing is left unanswered.
    expect(state.toolCalls).toBe(2)
  })

  it('max_steps on resume when the state already used every step', () => {
    const state: RunState = { ...fresh(), step: 5 }
    expectFinish(transition(state, { type: 'continue' }, limits).next, 'max_steps')
  })

  it('max_tool_calls: a step whose calls would exceed the limit finishes and returns them unanswered', () => {
    const first = [call('a', { n: 1 }), call('b', { n: 2 })]
    const second = [call('c', { n: 3 }), call('d', { n: 4 })]
    const { steps, last } = play([model({ toolCalls: first }), { type: 'tools', executed: 2 }, model({ toolCalls: second })], {
      limits: { ...limits, maxToolCalls: 3 },
    })
    expect(steps[0]!.next).toEqual({ action: 'run-tools' })
    expectFinish(last.next, 'max_tool_calls', second)
    expect(last.state).toMatchObject({ phase: 'done', pending: [], toolCalls: 2 })
  })

  it('max_tool_calls is exact: reaching the limit is allowed, exceeding it is not', () => {
    expect(transition(fresh(), model({ toolCalls: [call('a'), call('b')] }), { ...limits, maxToolCalls: 2 }).next).toEqual({ action: 'run-tools' })
    expectFinish(transition(fresh(), model({ toolCalls: [call('a'), call('b')] }), { ...limits, maxToolCalls: 1 }).next, 'max_tool_calls', [
      call('a'),
      call('b'),
    ])
  })

  const budgets: Array<[string, TransitionLimits['budget'], Usage]> = [
    ['maxInputTokens', { maxInputTokens: 100 }, { inputTokens: 100, outputTokens: 1 }],
    ['maxOutputTokens', { maxOutputTokens: 50 }, { inputTokens: 1, outputTokens: 50 }],
    ['maxTotalTokens', { maxTotalTokens: 60 }, { inputTokens: 30, outputTokens: 30 }],
    ['maxCostUsd', { maxCostUsd: 0.5 }, { inputTokens: 1, outputTokens: 1, costUsd: 0.5 }],
  ]

  for (const [kind, budget, usage] of budgets) {
    it(`budget (${kind}): a step with tool calls that reaches it finishes with the calls unanswered`, () => {
      const calls = [call('expensive')]
      const { next, state } = transition(fresh(), model({ toolCalls: calls, usage }), { ...limits, budget })
      expectFinish(next, 'budget', calls)
      expect(state.finishReason).toBe('budget')
    })

    it(`budget (${kind}): reached after tools, the model is not called again`, () => {
      const state: RunState = { ...fresh(), phase: 'tools', step: 1, usage, pending: [call('t')] }
      const { next } = transition(state, { type: 'tools', executed: 1 }, { ...limits, budget })
      expectFinish(next, 'budget')
    })

    it(`budget (${kind}): just under it the run goes on`, () => {
      const under: Usage = {
        inputTokens: Math.max(0, usage.inputTokens - 1),
        outputTokens: kind === 'maxTotalTokens' ? usage.outputTokens : Math.max(0, usage.outputTokens - 1),
        ...(usage.costUsd ? { costUsd: usage.costUsd - 0.01 } : {}),
      }
      expect(transition(fresh(), model({ toolCalls: [call('t')], usage: under }), { ...limits, budget }).next).toEqual({ action: 'run-tools' })
    })
  }

  it('budget never discards a final answer: reaching it with an answer is a stop', () => {
    const { next, state } = transition(fresh(), model({ text: 'answer', usage: { inputTokens: 500, outputTokens: 500 } }), {
      ...limits,
      budget: { maxTotalTokens: 10 },
    })
    expectFinish(next, 'stop')
    expect(state.text).toBe('answer')
  })

  it('overBudget checks each kind independently', () => {
    const usage: Usage = { inputTokens: 10, outputTokens: 10, costUsd: 0.1 }
    expect(overBudget(usage, limits)).toBe(false)
    expect(overBudget(usage, { ...limits, budget: { maxInputTokens: 11, maxOutputTokens: 11, maxTotalTokens: 21, maxCostUsd: 0.2 } })).toBe(false)
    expect(overBudget(usage, { ...limits, budget: { maxTotalTokens: 20 } })).toBe(true)
    expect(overBudget({ inputTokens: 0, outputTokens: 0 }, { ...limits, budget: { maxCostUsd: 1 } })).toBe(false)
  })

  for (const reason of ['timeout', 'cancelled'] as const) {
    it(`${reason} via aborted, in the model phase (nothing unanswered)`, () => {
      const { next, state } = transition(fresh(), { type: 'aborted', reason }, limits)
      expectFinish(next, reason)
      expect(state).toMatchObject({ phase: 'done', finishReason: reason })
    })

    it(`${reason} via aborted, in the tools phase: the pending calls are returned unanswered`, () => {
      const calls = [call('slow')]
      const { state: inTools } = transition(fresh(), model({ toolCalls: calls }), limits)
      const { next, state } = transition(inTools, { type: 'aborted', reason }, limits)
      expectFinish(next, reason, calls)
      expect(state.pending).toEqual([])
    })
  }

  it('awaiting approval: a pending call that needs approval suspends before tools run', () => {
    const calls = [call('read'), call('deploy', { env: 'prod' }, 'c2', { approval: 'required' })]
    const { next, state } = transition(fresh(), model({ toolCalls: calls }), limits)
    expect(next).toEqual({ action: 'await-approval' })
    expect(state).toMatchObject({ phase: 'tools', pending: calls })
    // Still waiting while undecided.
    expect(transition(state, { type: 'continue' }, limits).next).toEqual({ action: 'await-approval' })
    // Once decided (approved or denied), the resumed run executes the tools.
    for (const decision of ['approved', 'denied'] as const) {
      const decided: RunState = { ...state, pending: state.pending.map((entry) => (entry.approval ? { ...entry, approval: decision } : entry)) }
      expect(transition(decided, { type: 'continue' }, limits).next).toEqual({ action: 'run-tools' })
    }
  })

  it('an approval can still be cancelled while suspended: the calls come back unanswered', () => {
    const calls = [call('deploy', {}, 'c1', { approval: 'required' })]
    const { state } = transition(fresh(), model({ toolCalls: calls }), limits)
    expectFinish(transition(state, { type: 'aborted', reason: 'cancelled' }, limits).next, 'cancelled', calls)
  })

  it('policy via a violation: the message is kept as a policy_violation error', () => {
    const { next, state } = transition(fresh(), { type: 'violation', message: 'tool "rm" is denied' }, limits)
    expectFinish(next, 'policy')
    expect(state.error).toEqual({ code: 'policy_violation', message: 'tool "rm" is denied' })
  })

  it('policy via a violation in the tools phase returns the pending calls unanswered', () => {
    const calls = [call('rm', { path: '/' })]
    const { state } = transition(fresh(), model({ toolCalls: calls }), limits)
    expectFinish(transition(state, { type: 'violation', message: 'denied' }, limits).next, 'policy', calls)
  })

  it('policy via the doom-loop threshold: the same calls three times in a row', () => {
    const repeated = () => [call('search', { q: 'same' }, `id-${Math.random()}`)]
    const { steps, last } = play([
      model({ toolCalls: repeated() }),
      { type: 'tools', executed: 1 },
      model({ toolCalls: repeated() }),
      { type: 'tools', executed: 1 },
      model({ toolCalls: repeated() }),
    ])
    expect(steps[2]!.state.repeatCount).toBe(2)
    expect(last.next).toMatchObject({ action: 'finish', reason: 'policy' })
    expect((last.next as Extract<Next, { action: 'finish' }>).unanswered).toHaveLength(1)
    expect(last.state.error).toEqual({ code: 'doom_loop', message: 'the model repeated the same tool call 3 times in a row' })
  })

  it('the doom-loop counter resets on different arguments, a different tool, or an answer in between', () => {
    const a = () => model({ toolCalls: [call('search', { q: 'a' })] })
    const b = () => model({ toolCalls: [call('search', { q: 'b' })] })
    const tools: Outcome = { type: 'tools', executed: 1 }
    const { state } = play([a(), tools, a(), tools, b(), tools, b(), tools, a(), tools], { limits: { ...limits, maxSteps: 10 } })
    expect(state.phase).toBe('model')
    expect(state.repeatCount).toBe(1)
    // An answer without tool calls clears the signature.
    const answered = transition({ ...fresh(), lastCallSignature: 'x', repeatCount: 2 }, model({ text: 'hi' }), limits).state
    expect(answered).toMatchObject({ repeatCount: 0, lastCallSignature: undefined })
  })

  it('the doom-loop signature sees equal arguments as the same call and tells apart arguments that differ in type, nesting or boundaries', () => {
    const repeats = (first: JsonValue, second: JsonValue, name = 't') => {
      const { state } = transition(fresh(), model({ toolCalls: [call('t', first)] }), limits)
      const answered = transition(state, { type: 'tools', executed: 1 }, limits).state
      return transition(answered, model({ toolCalls: [call(name, second)] }), limits).state.repeatCount
    }
    // Equal values in new objects (as a model sends them again), and a key whose value is undefined (JSON drops it).
    expect(repeats({ q: 'a', n: [1, { deep: true }] }, { q: 'a', n: [1, { deep: true }] })).toBe(2)
    expect(repeats({ q: 1 }, { q: 1, skipped: undefined } as unknown as JsonValue)).toBe(2)
    for (const [first, second] of [
      [{ q: 1 }, { q: '1' }],
      [{ q: [1, 2] }, { q: [[1], 2] }],
      [{ ab: 'c' }, { a: 'bc' }],
      [{ q: null }, { q: 'null' }],
      [{ q: true }, { q: 'true' }],
      [{ q: 0.1 + 0.2 }, { q: 0.3 }],
      [{ q: {} }, { q: [] }],
      [{ a: 1, b: 2 }, { a: 1 }],
    ] as Array<[JsonValue, JsonValue]>) {
      expect(repeats(first, second), `${JSON.stringify(first)} vs ${JSON.stringify(second)}`).toBe(1)
    }
    expect(repeats({ q: 1 }, { q: 1 }, 'other')).toBe(1)
  })

  it('the doom-loop signature does not depend on the order of keys, nor of the calls of one step', () => {
    const { state } = transition(fresh(), model({ toolCalls: [call('t', { a: 1, b: { c: 2, d: [3] } }), call('u', { x: 1 })] }), limits)
    const answered = transition(state, { type: 'tools', executed: 2 }, limits).state
    const again = transition(answered, model({ toolCalls: [call('u', { x: 1 }), call('t', { b: { d: [3], c: 2 }, a: 1 })] }), limits).state
    expect(again.repeatCount).toBe(2)
  })

  it('policy via the doom-loop threshold: a cycle of two or three calls repeated three times (A, B, A, B, A, B)', () => {
    const tools: Outcome = { type: 'tools', executed: 1 }
    const step = (name: string) => [model({ toolCalls: [call(name, { q: name })] }), tools]
    const cycle2 = play([...step('a'), ...step('b'), ...step('a'), ...step('b'), ...step('a'), model({ toolCalls: [call('b', { q: 'b' })] })], {
      limits: { ...limits, maxSteps: 20 },
    })
    expect(cycle2.steps.at(-2)!.next).toEqual({ action: 'call-model', continuation: false })
    expect(cycle2.last.next).toMatchObject({ action: 'finish', reason: 'policy' })
    expect(cycle2.last.state.error).toEqual({ code: 'doom_loop', message: 'the model repeated the same cycle of 2 tool calls 3 times in a row' })
    const nine = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b'].flatMap(step)
    const cycle3 = play([...nine, model({ toolCalls: [call('c', { q: 'c' })] })], { limits: { ...limits, maxSteps: 20 } })
    expect(cycle3.last.state.error).toEqual({ code: 'doom_loop', message: 'the model repeated the same cycle of 3 tool calls 3 times in a row' })
    // A broken cycle (A, B, A, C, A, B) and alternating work with progress are not loops.
    const broken = play(['a', 'b', 'a', 'c', 'a', 'b'].flatMap(step), { limits: { ...limits, maxSteps: 20 } })
    expect(broken.last.next).toEqual({ action: 'call-model', continuation: false })
    // An answer clears what the check keeps.
    expect(transition(broken.state, model({ text: 'done' }), limits).state).toMatchObject({
      callSignature2: undefined,
      callSignature3: undefined,
      cycleRun2: 0,
      cycleRun3: 0,
    })
  })

  it('the doom-loop threshold is configurable', () => {
    const same = () => model({ toolCalls: [call('t', { x: 1 })] })
    const { last } = play([same(), { type: 'tools', executed: 1 }, same()], { limits: { ...limits, doomLoopThreshold: 2 } })
    expect(last.next).toMatchObject({ action: 'finish', reason: 'policy' })
  })

  it('length: continues the answer up to maxLengthContinuations times, then finishes with length and the whole text', () => {
    const { steps, last } = play([
      { type: 'continue' },
      model({ text: 'part one, ', finishReason: 'length' }),
      model({ text: 'part two, ', finishReason: 'length' }),
      model({ text: 'part three', finishReason: 'length' }),
    ])
    expect(steps[1]!.next).toEqual({ action: 'call-model', continuation: true })
    expect(steps[2]!.next).toEqual({ action: 'call-model', continuation: true })
    expect(steps[2]!.state.lengthContinuations).toBe(2)
    expectFinish(last.next, 'length')
    expect(last.state.text).toBe('part one, part two, part three')
    expect(last.state.step).toBe(3)
  })

  it('length: a continuation that completes finishes with stop and the joined text', () => {
    const { last } = play([model({ text: 'Once upon ', finishReason: 'length' }), model({ text: 'a time.' })])
    expectFinish(last.next, 'stop')
    expect(last.state.text).toBe('Once upon a time.')
  })

  it('length: no continuation when continuations are disabled, the step limit is reached, or the budget is spent', () => {
    expectFinish(transition(fresh(), model({ text: 'x', finishReason: 'length' }), { ...limits, maxLengthContinuations: 0 }).next, 'length')
    expectFinish(transition(fresh(), model({ text: 'x', finishReason: 'length' }), { ...limits, maxSteps: 1 }).next, 'length')
    expectFinish(transition(fresh(), model({ text: 'x', finishReason: 'length' }), { ...limits, budget: { maxOutputTokens: 5 } }).next, 'length')
  })

  it('length: resuming a run mid-continuation calls the model as a continuation', () => {
    const { state } = transition(fresh(), model({ text: 'partial', finishReason: 'length' }), limits)
    expect(transition(state, { type: 'continue' }, limits).next).toEqual({ action: 'call-model', continuation: true })
  })

  it('content_filter', () => {
    const { next, state } = transition(fresh(), model({ text: 'I cannot', finishReason: 'content-filter' }), limits)
    expectFinish(next, 'content_filter')
    expect(state.text).toBe('I cannot')
  })

  it('error via a model that finished with an error', () => {
    const { next, state } = transition(fresh(), model({ text: '', finishReason: 'error' }), limits)
    expectFinish(next, 'error')
    expect(state.error).toEqual({ code: 'provider', message: 'the model finished with an error' })
  })

  it('error via an error outcome, keeping the error; in the tools phase the calls come back unanswered', () => {
    const error = { code: 'store', message: 'disk full' }
    const { next, state } = transition(fresh(), { type: 'error', error }, limits)
    expectFinish(next, 'error')
    expect(state.error).toEqual(error)
    const calls = [call('write')]
    const { state: inTools } = transition(fresh(), model({ toolCalls: calls }), limits)
    expectFinish(transition(inTools, { type: 'error', error }, limits).next, 'error', calls)
  })

  it('resuming a finished run finishes again with its reason and nothing unanswered', () => {
    const { state } = transition(fresh(), model({ text: 'bye', finishReason: 'content-filter' }), limits)
    const again = transition(state, { type: 'continue' }, limits)
    expectFinish(again.next, 'content_filter')
    expect(again.state).toBe(state)
  })

  it('resuming in the tools phase re-checks the tool limits', () => {
    const state: RunState = { ...fresh(), phase: 'tools', step: 1, toolCalls: 9, pending: [call('a'), call('b')] }
    expectFinish(transition(state, { type: 'continue' }, limits).next, 'max_tool_calls', state.pending)
    expect(transition({ ...state, toolCalls: 0 }, { type: 'continue' }, limits).next).toEqual({ action: 'run-tools' })
  })
})

describe('transition: purity', () => {
  it('never mutates the input state or the outcome (deep-frozen inputs, every outcome kind)', () => {
    const calls = [call('a', { nested: { deep: [1, 2] } })]
    const states: RunState[] = [
      fresh(),
      { ...fresh(), phase: 'tools', step: 1, pending: calls },
      {
        ...fresh(),
        step: 2,
        text: 'partial',
        lengthContinuations: 1,
        lastCallSignature: 'sig',
        repeatCount: 1,
        usage: { inputTokens: 5, outputTokens: 5, costUsd: 0.1 },
      },
      { ...fresh(), phase: 'done', finishReason: 'stop' },
    ]
    const outcomes: Outcome[] = [
      { type: 'continue' },
      model({ text: 'answer' }),
      model({ text: 'more', finishReason: 'length' }),
      model({ toolCalls: [call('b', { x: [1] })] }),
      { type: 'tools', executed: 1 },
      { type: 'error', error: { code: 'x', message: 'y' } },
      { type: 'aborted', reason: 'timeout' },
      { type: 'violation', message: 'no' },
    ]
    for (const state of states) {
      for (const outcome of outcomes) {
        const before = structuredClone(state)
        const frozenState = deepFreeze(structuredClone(state))
        const frozenOutcome = deepFreeze(structuredClone(outcome))
        const result = transition(frozenState, frozenOutcome, deepFreeze(structuredClone(limits)))
        expect(frozenState).toEqual(before)
        if (result.state !== frozenState) expect(result.state).not.toBe(frozenState)
        expect(JSON.parse(JSON.stringify(result.state))).toEqual(result.state)
      }
    }
  })

  it('is deterministic: the same inputs give the same result', () => {
    const outcome = model({ toolCalls: [call('a', { b: 1 })], usage: { inputTokens: 3, outputTokens: 4 } })
    expect(transition(fresh(), outcome, limits)).toEqual(transition(fresh(), outcome, limits))
  })
})

function invariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`invariant broken: ${message}`)
}

/** mulberry32: a small seeded PRNG so failures are reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

describe('transition: property — random runs that follow the protocol never reach an invalid state', () => {
  it('holds its invariants over 3000 seeded random runs and reaches every finish reason', () => {
    const random = prng(0x5eed)
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
    const reached = new Set<FinishReason>()
    const actions = new Set<string>()
    const unansweredSeen = new Set<string>()
    let transitions = 0

    for (let run = 0; run < 3000; run++) {
      const runLimits: TransitionLimits = {
        maxSteps: 1 + Math.floor(random() * 8),
        maxToolCalls: Math.floor(random() * 10),
        maxLengthContinuations: Math.floor(random() * 3),
        doomLoopThreshold: 2 + Math.floor(random() * 3),
        budget: {
          ...(random() < 0.2 ? { maxInputTokens: 20 + Math.floor(random() * 200) } : {}),
          ...(random() < 0.2 ? { maxOutputTokens: 10 + Math.floor(random() * 100) } : {}),
          ...(random() < 0.2 ? { maxTotalTokens: 30 + Math.floor(random() * 300) } : {}),
          ...(random() < 0.2 ? { maxCostUsd: 0.01 + random() * 0.2 } : {}),
        },
      }
      let state = fresh()
      let outcome: Outcome = { type: 'continue' }
      for (let guard = 0; guard < 200; guard++) {
        // Deep-frozen: any mutation of the input state would throw (ES modules run in strict mode).
        const previous = deepFreeze(state)
        const result = transition(previous, outcome, runLimits)
        transitions++
        state = result.state
        const { next } = result
        actions.add(next.action === 'call-model' ? `call-model:${next.continuation}` : next.action)

        // Invariants of every state (plain checks: this loop runs tens of thousands of times).
        const where = `run ${run}, transition ${guard}, outcome ${outcome.type}, next ${next.action}`
        invariant(state.step >= 0 && state.step <= runLimits.maxSteps, `${where}: step ${state.step} outside 0..${runLimits.maxSteps}`)
        invariant(state.toolCalls <= runLimits.maxToolCalls, `${where}: ${state.toolCalls} tool calls > ${runLimits.maxToolCalls}`)
        invariant(state.lengthContinuations <= runLimits.maxLengthContinuations, `${where}: too many length continuations`)
        invariant(state.usage.inputTokens >= previous.usage.inputTokens && state.usage.outputTokens >= previous.usage.outputTokens, `${where}: usage went down`)
        invariant(state.repeatCount < runLimits.doomLoopThreshold || state.finishReason === 'policy', `${where}: doom loop not stopped`)

        if (next.action === 'finish') {
          invariant(state.phase === 'done', `${where}: finished but phase ${state.phase}`)
          invariant(state.pending.length === 0, `${where}: finished with pending calls`)
          invariant(state.finishReason === next.reason, `${where}: finishReason ${state.finishReason} != ${next.reason}`)
          // Calls are returned unanswered exactly when the run ends in the tools phase: the calls the model
          // just made, or the ones pending when a failure struck; after a tools outcome every call has its result.
          const expectedUnanswered =
            outcome.type === 'tools' ? [] : outcome.type === 'model' ? outcome.toolCalls : previous.phase === 'tools' ? previous.pending : []
          invariant(isDeepStrictEqual(next.unanswered, expectedUnanswered), `${where}: unanswered ${JSON.stringify(next.unanswered)}`)
          if (next.unanswered.length) unansweredSeen.add(outcome.type)
          reached.add(next.reason)
          // Once done, it stays done.
          const again = transition(state, { type: 'continue' }, runLimits)
          invariant(
            again.state === state && isDeepStrictEqual(again.next, { action: 'finish', reason: next.reason, unanswered: [] }),
            `${where}: resume of a done run`,
          )
          for (const late of [
            { type: 'error', error: { code: 'x', message: 'late' } },
            { type: 'aborted', reason: 'cancelled' },
            { type: 'violation', message: 'late' },
          ] as Outcome[]) {
            const after = transition(state, late, runLimits)
            invariant(after.state.phase === 'done' && after.state.pending.length === 0, `${where}: ${late.type} after done left the done phase`)
            invariant(after.next.action === 'finish' && after.next.unanswered.length === 0, `${where}: ${late.type} after done returned calls`)
          }
          break
        }
        invariant(state.phase !== 'done' && state.finishReason === undefined, `${where}: not finished but phase done`)
        if (next.action === 'call-model') {
          invariant(state.phase === 'model' && state.pending.length === 0, `${where}: calls the model with phase ${state.phase}`)
          invariant(state.step < runLimits.maxSteps, `${where}: calls the model at step ${state.step}`)
        } else {
          invariant(state.phase === 'tools' && state.pending.length > 0, `${where}: tools action without pending calls`)
          invariant(state.toolCalls + state.pending.length <= runLimits.maxToolCalls, `${where}: would exceed maxToolCalls`)
          const needsApproval = state.pending.some((entry) => entry.approval === 'required')
          invariant(next.action === (needsApproval ? 'await-approval' : 'run-tools'), `${where}: approval routing`)
        }

        // The executor's next outcome, following the protocol; sometimes a failure instead.
        const failure = random()
        if (failure < 0.03) outcome = { type: 'error', error: { code: 'provider', message: 'boom' } }
        else if (failure < 0.05) outcome = { type: 'aborted', reason: pick(['cancelled', 'timeout'] as const) }
        else if (failure < 0.07) outcome = { type: 'violation', message: 'denied' }
        else if (next.action === 'call-model') {
          const toolCount = random() < 0.55 ? 1 + Math.floor(random() * 3) : 0
          const toolCalls = Array.from({ length: toolCount }, (_, index) =>
            call(pick(['search', 'read']), { q: pick(['a', 'b']) }, `c${guard}-${index}`, random() < 0.1 ? { approval: 'required' } : {}),
          )
          outcome = {
            type: 'model',
            text: pick(['', 'some text ', 'answer']),
            toolCalls,
            finishReason: toolCount ? 'tool-calls' : pick(['stop', 'stop', 'length', 'length', 'content-filter', 'error', 'other'] as const),
            usage: random() < 0.1 ? undefined : { inputTokens: Math.floor(random() * 60), outputTokens: Math.floor(random() * 30), costUsd: random() * 0.02 },
          }
        } else if (next.action === 'run-tools') {
          outcome = { type: 'tools', executed: Math.floor(random() * (state.pending.length + 1)) }
        } else {
          // Suspended for approval: a human decides each call, then the run resumes.
          state = {
            ...state,
            pending: state.pending.map((entry) => (entry.approval === 'required' ? { ...entry, approval: pick(['approved', 'denied'] as const) } : entry)),
          }
          outcome = { type: 'continue' }
        }
      }
      invariant(state.phase === 'done', `run ${run} did not finish within 200 transitions`)
    }

    expect(transitions).toBeGreaterThan(8_000)
    expect([...unansweredSeen].sort()).toEqual(['aborted', 'error', 'model', 'violation'])
    expect([...actions].sort()).toEqual(['await-approval', 'call-model:false', 'call-model:true', 'finish', 'run-tools'])
    expect([...reached].sort()).toEqual(
      (['budget', 'cancelled', 'content_filter', 'error', 'length', 'max_steps', 'max_tool_calls', 'policy', 'stop', 'timeout'] as FinishReason[]).sort(),
    )
  })
})

// The provider conformance suite names the broken rule and its fix: proven against deliberately broken providers
// that speak a tiny NDJSON wire over real HTTP, beside the same provider without the flaw (which passes).
import { ConformanceError, ProviderError, StreamInterruptedError, type LanguageModel, type StreamPart } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { ruleOf } from '../conformance/rule.js'
import type { ScriptedResponse } from '../wire/sse-server.js'
import type { LanguageModelConformanceCase, LanguageModelConformanceContext } from './describe-language-model.js'
import { runLanguageModelCase } from './describe-language-model.js'
import { streamRuleViolations } from './stream-rules.js'
import type { WireAdapter, WireTurn } from './wire-adapter.js'

/** A toy protocol: one JSON line per Spindle part, so the provider under test stays a few lines long. */
function toyLines(turn: WireTurn): unknown[] {
  const lines: unknown[] = []
  for (const delta of turn.text ?? []) lines.push({ type: 'text-delta', delta })
  for (const call of turn.toolCalls ?? []) {
    lines.push({ type: 'tool-call-start', id: call.id, name: call.name })
    for (const [index, chunk] of call.argumentChunks.entries()) {
      lines.push({ type: 'tool-call-delta', id: call.id, argsDelta: chunk })
      if (turn.truncate === 'mid-tool-arguments' && index === 0) return lines
    }
    lines.push({ type: 'tool-call-end', id: call.id })
  }
  if (turn.truncate === 'before-finish') return lines
  if (turn.usage) lines.push({ type: 'usage', usage: turn.usage })
  lines.push({ type: 'finish', finishReason: turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop') })
  return lines
}

const toyWire: WireAdapter = {
  protocol: 'toy-ndjson',
  path: '/toy/stream',
  features: { reasoning: false },
  streamTurn: (turn): ScriptedResponse => ({ eventFormat: 'ndjson', events: toyLines(turn).map((data) => ({ data })) }),
  httpError: (error) => ({ status: error.status, json: { error: error.message } }),
  inBandError: (before, error) => ({
    eventFormat: 'ndjson',
    events: [...toyLines({ ...before, truncate: 'before-finish' }), { type: 'error', status: error.status, message: error.message }].map((data) => ({ data })),
  }),
  finishReasonCases: [{ name: 'stop', turn: { text: ['ok'] }, expected: 'stop' }],
}

interface Flaws {
  /** Forgets to forward the terminal line: the stream ends without `finish`. */
  dropFinish?: boolean
  /** Closes the "current" call whenever a call starts, so the first end comes before any start. */
  endBeforeStart?: boolean
  /** Reports output tokens as output minus input (a total-minus-prompt bug gone wrong). */
  negativeUsage?: boolean
  /** Never forwards usage. */
  dropUsage?: boolean
}

function toyModel(context: LanguageModelConformanceContext, flaws: Flaws = {}): LanguageModel {
  return {
    specificationVersion: 'v1',
    provider: 'toy',
    modelId: context.modelId,
    capabilities: { contextWindow: 8192, maxOutputTokens: 1024, tools: true, parallelTools: true, reasoning: false, structuredOutput: false },
    async *stream(request, options) {
      const response = await fetch(`${context.baseURL}/toy/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
        ...(options?.signal && { signal: options.signal }),
      })
      if (!response.ok) throw new ProviderError(`[toy] HTTP ${response.status}`, { status: response.status })
      let finished = false
      for (const line of (await response.text()).split('\n').filter(Boolean)) {
        const wireError = JSON.parse(line) as { type: string; status?: number; message?: string }
        if (wireError.type === 'error') throw new ProviderError(`[toy] ${wireError.message}`, { status: wireError.status })
        const part = JSON.parse(line) as StreamPart
        if (part.type === 'finish') {
          finished = true
          if (flaws.dropFinish) continue
        }
        if (part.type === 'tool-call-start' && flaws.endBeforeStart) yield { type: 'tool-call-end', id: part.id }
        if (part.type === 'tool-call-end' && flaws.endBeforeStart) continue
        if (part.type === 'usage') {
          if (flaws.dropUsage) continue
          if (flaws.negativeUsage) part.usage.outputTokens -= part.usage.inputTokens
        }
        yield part
      }
      if (!finished) throw new StreamInterruptedError('[toy] the stream ended before its finish line')
    },
  }
}

async function failure(caseName: LanguageModelConformanceCase, flaws: Flaws): Promise<ConformanceError> {
  const outcome = await runLanguageModelCase(caseName, { wire: toyWire, createModel: (context) => toyModel(context, flaws) }).then(
    () => undefined,
    (error: unknown) => error,
  )
  if (outcome === undefined) throw new Error(`case ${caseName} passed against a broken provider`)
  expect(outcome).toBeInstanceOf(ConformanceError)
  return outcome as ConformanceError
}

function expectRule(error: ConformanceError, rule: string, fixHint: RegExp): void {
  expect(ruleOf(error)).toBe(rule)
  expect(error.code).toBe('conformance')
  // The first line also names the case, the key `skip` takes.
  const caseName = error.details?.case
  expect(caseName).toBeTypeOf('string')
  expect(error.message.split('\n')[0]).toBe(`[spindle/testing] Conformance rule "${rule}" is broken (case ${String(caseName)} — skip it with that name).`)
  expect(error.message).toMatch(/How to fix: /)
  expect(error.message).toMatch(fixHint)
  expect(error.message).toMatch(/What failed: /)
}

describe('provider conformance against broken providers', () => {
  it('a stream that never sends finish breaks provider.stream.ends-with-finish', async () => {
    const error = await failure('text', { dropFinish: true })
    expectRule(error, 'provider.stream.ends-with-finish', /must end with a `finish` part/)
    expect(error.details?.case).toBe('text')
    expect(error.message).toMatch(/without a finish part and without an error/)
  })

  it('a tool-call-end before any tool-call-start breaks provider.stream.tool-call-order', async () => {
    const error = await failure('one-tool-call', { endBeforeStart: true })
    expectRule(error, 'provider.stream.tool-call-order', /emit `tool-call-start` \(id, name\) before any/)
    expect(error.message).toMatch(/tool-call-end for call call_one before any tool-call-start/)
  })

  it('usage with negative numbers breaks provider.usage.non-negative', async () => {
    const error = await failure('usage', { negativeUsage: true })
    expectRule(error, 'provider.usage.non-negative', /non-negative integers/)
    expect(error.message).toMatch(/outputTokens = -1120/)
  })

  it('a case-level failure names the case rule and its fix (usage never reported breaks provider.usage)', async () => {
    const error = await failure('usage', { dropUsage: true })
    expectRule(error, 'provider.usage', /report usage in a `usage` part or on `finish`/)
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('a wrong error code reads "expected code …, got …" (an HTTP 400 overflow left as a ProviderError)', async () => {
    const error = await failure('context-overflow', {})
    expectRule(error, 'provider.context-overflow', /ContextOverflowError \(code context_overflow\)/)
    expect(error.message).toMatch(/What failed: expected code context_overflow, got provider \(ProviderError \[provider\]: \[toy\] HTTP 400\)/)
  })

  it('the same cases pass against the provider without the flaw', async () => {
    for (const caseName of ['text', 'one-tool-call', 'usage', 'truncated-before-finish', 'truncated-mid-tool-arguments', 'in-band-error'] as const) {
      await runLanguageModelCase(caseName, { wire: toyWire, createModel: (context) => toyModel(context) })
    }
  })

  it('streamRuleViolations lists every broken rule of a part sequence', () => {
    const parts: StreamPart[] = [
      { type: 'tool-call-end', id: 'x' },
      { type: 'usage', usage: { inputTokens: -1, outputTokens: 1.5 } },
      { type: 'finish', finishReason: 'stop' },
      { type: 'text-delta', delta: 'late' },
    ]
    expect(streamRuleViolations({ parts, error: undefined }).map((violation) => violation.rule)).toEqual([
      'provider.stream.tool-call-order',
      'provider.usage.non-negative',
      'provider.usage.non-negative',
      'provider.stream.finish-last',
    ])
    expect(streamRuleViolations({ parts: [{ type: 'text-delta', delta: 'a' }], error: undefined })).toEqual([
      { rule: 'provider.stream.ends-with-finish', message: 'the stream ended after 1 part(s) without a finish part and without an error' },
    ])
  })
})

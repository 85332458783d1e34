import { describe, expect, it } from 'vitest'
import { countMessagesTokens } from '../context/tokenizer.js'
import type { ModelMessage } from '../spec/messages.js'
import type { CompactionRecord, SessionEntry } from '../spec/session-store.js'
import { CompactionService, type CompactRequest } from './compaction-service.js'
import type { CompactionInput, CompactionStrategy } from '../spec/compaction-strategy.js'

const window: SessionEntry[] = (
  [
    { role: 'user', content: 'first question '.repeat(20) },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', args: { q: 'x' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', result: 'result '.repeat(50) }] },
    { role: 'assistant', content: [{ type: 'text', text: 'first answer '.repeat(20) }] },
    { role: 'user', content: 'second question' },
  ] satisfies ModelMessage[]
).map((message, index) => ({ kind: 'message', message, sessionId: 's', seq: index + 1, createdAt: 0 }))

function request(overrides: Partial<CompactRequest> = {}): CompactRequest {
  return { sessionId: 's', window, previous: undefined, targetTokens: 20, countTokens: countMessagesTokens, signal: new AbortController().signal, ...overrides }
}

/** A strategy scripted per call; records every input it receives. */
function scripted(...outcomes: Array<CompactionRecord | undefined | Error>): CompactionStrategy & { inputs: CompactionInput[] } {
  const inputs: CompactionInput[] = []
  let index = 0
  return {
    name: 'summarize',
    inputs,
    async compact(input) {
      inputs.push(input)
      const outcome = outcomes[Math.min(index++, outcomes.length - 1)]
      if (outcome instanceof Error) throw outcome
      return outcome
    },
  }
}

const summary = (throughSeq: number, text = 'The user asked two questions.'): CompactionRecord => ({ throughSeq, strategy: 'summarize', summary: text })

describe('CompactionService', () => {
  it('uses truncation by default, at a safe point', async () => {
    const service = new CompactionService()
    expect(service.strategy.name).toBe('truncate')
    const record = await service.compact(request())
    expect(record).toMatchObject({ strategy: 'truncate', throughSeq: 4 })
  })

  it('returns a valid record of the strategy as is, passing it the request', async () => {
    const strategy = scripted(summary(3))
    const service = new CompactionService(strategy)
    const input = request()
    expect(await service.compact(input)).toEqual(summary(3))
    expect(strategy.inputs[0]).toBe(input)
    expect(service.lastError).toBeUndefined()
  })

  it('returns undefined (no fallback) when the strategy finds nothing to compact', async () => {
    const service = new CompactionService(scripted(undefined))
    expect(await service.compact(request())).toBeUndefined()
  })

  it('falls back to truncation when the strategy throws, and keeps the error', async () => {
    const failure = new Error('summarizer model down')
    const service = new CompactionService(scripted(failure))
    const record = await service.compact(request())
    expect(record).toMatchObject({ strategy: 'truncate', throughSeq: 4 })
    expect(service.lastError).toBe(failure)
  })

  it('falls back to truncation when the summary is empty or blank', async () => {
    for (const text of ['', '   \n']) {
      const service = new CompactionService(scripted(summary(3, text)))
      expect(await service.compact(request())).toMatchObject({ strategy: 'truncate' })
      expect(String(service.lastError)).toContain('empty summary or an unsafe boundary')
    }
    const missing = new CompactionService(scripted({ throughSeq: 3, strategy: 'summarize' }))
    expect(await missing.compact(request())).toMatchObject({ strategy: 'truncate' })
  })

  it('falls back to truncation when the boundary would split a tool call from its result', async () => {
    // Cutting after seq 2 would leave the result of c1 without its call.
    const service = new CompactionService(scripted(summary(2)))
    const record = await service.compact(request())
    expect(record).toMatchObject({ strategy: 'truncate' })
    expect(record?.throughSeq).not.toBe(2)
    // A boundary past the window (the last entry, or beyond) is not safe either.
    const beyond = new CompactionService(scripted(summary(5)))
    expect(await beyond.compact(request())).toMatchObject({ strategy: 'truncate' })
  })

  it('rethrows the strategy error when the request was aborted, without falling back or counting a failure', async () => {
    const controller = new AbortController()
    const failure = new Error('aborted mid-summary')
    const strategy = scripted(failure)
    const service = new CompactionService(strategy, { failureThreshold: 1 })
    controller.abort()
    await expect(service.compact(request({ signal: controller.signal }))).rejects.toBe(failure)
    expect(service.circuitOpen).toBe(false)
  })

  it('opens the circuit after failureThreshold consecutive failures; the strategy is then not called during the cooldown', async () => {
    const strategy = scripted(new Error('down'))
    const service = new CompactionService(strategy, { failureThreshold: 3, cooldownMs: 60_000 })
    for (let i = 0; i < 2; i++) {
      await service.compact(request())
      expect(service.circuitOpen).toBe(false)
    }
    await service.compact(request())
    expect(strategy.inputs).toHaveLength(3)
    expect(service.circuitOpen).toBe(true)
    for (let i = 0; i < 5; i++) expect(await service.compact(request())).toMatchObject({ strategy: 'truncate' })
    expect(strategy.inputs).toHaveLength(3)
  })

  it('a success resets the consecutive failure count', async () => {
    const failure = new Error('flaky')
    const strategy = scripted(failure, failure, summary(3), failure, failure, summary(3))
    const service = new CompactionService(strategy, { failureThreshold: 3 })
    for (let i = 0; i < 6; i++) await service.compact(request())
    expect(service.circuitOpen).toBe(false)
    expect(strategy.inputs).toHaveLength(6)
  })

  it('invalid records count as failures for the breaker', async () => {
    const strategy = scripted(summary(3, ''))
    const service = new CompactionService(strategy, { failureThreshold: 2 })
    await service.compact(request())
    await service.compact(request())
    expect(service.circuitOpen).toBe(true)
  })

  it('tries the strategy again after the cooldown', async () => {
    const strategy = scripted(new Error('down'), summary(3))
    const service = new CompactionService(strategy, { failureThreshold: 1, cooldownMs: 30 })
    expect(await service.compact(request())).toMatchObject({ strategy: 'truncate' })
    expect(service.circuitOpen).toBe(true)
    expect(await service.compact(request())).toMatchObject({ strategy: 'truncate' })
    expect(strategy.inputs).toHaveLength(1)
    await new Promise((resolve) => setTimeout(resolve, 40))
    expect(service.circuitOpen).toBe(false)
    expect(await service.compact(request())).toEqual(summary(3))
    expect(strategy.inputs).toHaveLength(2)
  })
})

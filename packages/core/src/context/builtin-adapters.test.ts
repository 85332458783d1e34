import { describe, expect, it } from 'vitest'
import { mockModel } from '../providers/mock-model.js'
import type { SessionEntry } from '../spec/session-store.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import { historyAdapter, instructionsAdapter } from './builtin-adapters.js'
import type { ContextBuildInput, ContextDraft } from '../spec/context-adapter.js'

function input(overrides: Partial<ContextBuildInput> = {}): ContextBuildInput {
  return {
    runId: 'run-1',
    sessionId: 's',
    step: 1,
    agentName: 'assistant',
    instructions: undefined,
    model: mockModel([]),
    window: [],
    compaction: undefined,
    tools: [],
    stores: memoryStores(),
    runtime: undefined,
    signal: new AbortController().signal,
    ...overrides,
  }
}

const draft = (): ContextDraft => ({ system: [], messages: [], tools: [] })

describe('instructionsAdapter', () => {
  it('adds the instructions as a system section', () => {
    const target = draft()
    void instructionsAdapter.apply(target, input({ instructions: 'Be brief.' }))
    expect(target.system).toEqual(['Be brief.'])
    expect(target.messages).toEqual([])
  })

  it('adds nothing without instructions or summary', () => {
    const target = draft()
    void instructionsAdapter.apply(target, input())
    expect(target.system).toEqual([])
  })

  it('adds the summary of the last compaction after the instructions', () => {
    const target = draft()
    void instructionsAdapter.apply(
      target,
      input({ instructions: 'Be brief.', compaction: { throughSeq: 10, strategy: 'summarize', summary: 'The user asked about invoices.' } }),
    )
    expect(target.system).toEqual(['Be brief.', 'Summary of the earlier conversation:\nThe user asked about invoices.'])
  })

  it('a truncate compaction (no summary) adds no summary section', () => {
    const target = draft()
    void instructionsAdapter.apply(target, input({ compaction: { throughSeq: 10, strategy: 'truncate' } }))
    expect(target.system).toEqual([])
  })
})

describe('historyAdapter', () => {
  it('appends the message entries of the window in order, skipping compaction markers', () => {
    const window: SessionEntry[] = [
      { kind: 'compaction', compaction: { throughSeq: 2, strategy: 'truncate' }, sessionId: 's', seq: 3, createdAt: 0 },
      { kind: 'message', message: { role: 'user', content: 'hi' }, sessionId: 's', seq: 4, createdAt: 0 },
      { kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }, sessionId: 's', seq: 5, createdAt: 0 },
    ]
    const target = draft()
    target.messages.push({ role: 'user', content: 'earlier' })
    void historyAdapter.apply(target, input({ window }))
    expect(target.messages).toEqual([
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ])
  })
})

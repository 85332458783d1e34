import {
  CompactionService,
  ConfigurationError,
  countMessagesTokens,
  mockModel,
  type CompactionInput,
  type ModelMessage,
  type SessionEntry,
} from '@spindle/core'
import { safeCutPoints } from '@spindle/core/plugin-kit'
import { describe, expect, it } from 'vitest'
import { parseSummary, renderSummary, summarizeCompaction, summarySections } from './index.js'

const sectioned = (progress: string) =>
  `Here is the summary.\n## Goal\nPlan a trip to Lisbon\n## Constraints\nBudget 900 EUR\n## Progress\n${progress}\n## Decisions\nTrain, not plane\n## Next steps\nBook the hotel`

function log(messages: ModelMessage[]): SessionEntry[] {
  return messages.map((message, index) => ({ kind: 'message', message, sessionId: 's', seq: index + 1, createdAt: 0 }))
}

/** user, assistant(tool call), tool result, assistant text — repeated: cuts are safe only before a user or assistant. */
function conversation(turns: number): SessionEntry[] {
  const messages: ModelMessage[] = []
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `question ${turn} ${'q'.repeat(200)}` })
    messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'search', args: { query: `q${turn}` } }] })
    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${turn}`, toolName: 'search', result: `result ${turn} ${'r'.repeat(400)}` }] })
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] })
  }
  return log(messages)
}

function input(window: SessionEntry[], overrides: Partial<CompactionInput> = {}): CompactionInput {
  return {
    sessionId: 's',
    window,
    previous: undefined,
    targetTokens: 300,
    countTokens: (messages) => countMessagesTokens(messages),
    signal: new AbortController().signal,
    ...overrides,
  }
}

describe('summary sections', () => {
  it('parses headings in the usual markdown styles and renders all five in order', () => {
    const parsed = parseSummary('**Goal:** ship it\n**Progress**\n- built\nNext steps: test\n')
    expect(parsed?.get('Goal')).toBe('ship it')
    expect(parsed?.get('Next steps')).toBe('test')
    const rendered = renderSummary(parsed!)
    expect(rendered.split('\n').filter((line) => line.startsWith('## '))).toEqual(summarySections.map((name) => `## ${name}`))
    expect(rendered).toContain('## Constraints\n(none)')
    expect(parseSummary('no structure at all')).toBeUndefined()
  })

  it('keeps body lines that merely start with a section word in their section', () => {
    const parsed = parseSummary(
      [
        '## Goal',
        'Plan a trip to Lisbon',
        '## Progress',
        'Progress so far: flights compared.',
        'Goals of the user were clarified.',
        'Decisions about the hotel are pending.',
        '**Constraints** matter less now',
        '## Next steps',
        'Next steps include booking the hotel.',
      ].join('\n'),
    )
    expect(parsed?.get('Goal')).toBe('Plan a trip to Lisbon')
    expect(parsed?.get('Progress')).toBe(
      'Progress so far: flights compared.\nGoals of the user were clarified.\nDecisions about the hotel are pending.\n**Constraints** matter less now',
    )
    expect(parsed?.has('Decisions')).toBe(false)
    expect(parsed?.get('Next steps')).toBe('Next steps include booking the hotel.')
    // The heading styles still parse: markdown, bold (colon inside or outside), plain with a colon, a name alone.
    const styles = parseSummary('# Goal: ship\n**Constraints**: none\n**Progress:** built\nDecisions: keep it\nNext Steps\ntest')
    expect(Object.fromEntries(styles!)).toEqual({ Goal: 'ship', Constraints: 'none', Progress: 'built', Decisions: 'keep it', 'Next steps': 'test' })
  })
})

describe('summarizeCompaction', () => {
  it('summarizes the oldest turns at a safe cut, sending the previous summary and only the compacted turns', async () => {
    const model = mockModel([{ text: sectioned('Searched q0..q2') }])
    const window = conversation(6)
    const record = await summarizeCompaction({ model, maxSummaryTokens: 100 }).compact(
      input(window, { targetTokens: 900, previous: { throughSeq: 0, strategy: 'summarize', summary: '## Goal\nEarlier goal' } }),
    )
    expect(record?.strategy).toBe('summarize')
    expect(safeCutPoints(window)).toContain(record!.throughSeq)
    expect(
      window.find((entry) => entry.seq === record!.throughSeq + 1)?.kind === 'message' &&
        (window.find((entry) => entry.seq === record!.throughSeq + 1) as { message: ModelMessage }).message.role,
    ).not.toBe('tool')
    expect(record!.summary).toContain('## Progress\nSearched q0..q2')
    expect(record!.summary).not.toContain('Here is the summary')
    // Room is left for the summary to grow from the previous one's size to maxSummaryTokens.
    expect(record!.tokensAfter).toBeLessThanOrEqual(900 - 100 + countMessagesTokens([{ role: 'system', content: '## Goal\nEarlier goal' }]))
    expect(record!.tokensAfter).toBeGreaterThan(0)
    const [system, user] = model.calls[0]!.messages
    expect(system?.role).toBe('system')
    expect(String(system?.content)).toContain('## Next steps')
    const prompt = String(user?.content)
    expect(prompt).toContain('Earlier goal')
    expect(prompt).toContain('question 0')
    // The kept turns are not sent to the summarizer.
    expect(prompt).not.toContain('question 5')
    expect(model.calls[0]!.maxOutputTokens).toBe(100)
  })

  it('clips long tool results in the transcript', async () => {
    const model = mockModel([{ text: sectioned('ok') }])
    const window = log([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'dump', args: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'dump', result: 'z'.repeat(50_000) }] },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: [{ type: 'text', text: 'fine' }] },
    ])
    await summarizeCompaction({ model, maxPartChars: 300 }).compact(input(window, { targetTokens: 10 }))
    const prompt = String(model.calls[0]!.messages[1]!.content)
    expect(prompt).toContain('characters omitted')
    expect(prompt.length).toBeLessThan(2_000)
  })

  it('turns longer than maxTranscriptChars are summarized in parts, in order, each merged into the last: nothing is left out', async () => {
    const model = mockModel((_request, index) => ({ text: sectioned(`merged part ${index + 1}`) }))
    const window = conversation(20)
    const record = await summarizeCompaction({ model, maxTranscriptChars: 2_000 }).compact(
      input(window, { targetTokens: 50, previous: { throughSeq: 0, strategy: 'summarize', summary: 'EARLIER SUMMARY', tokensBefore: 0, tokensAfter: 0 } }),
    )
    const prompts = model.calls.map((call) => String(call.messages[1]!.content))
    expect(prompts.length).toBeGreaterThan(3)
    // Every compacted turn reached the summarizer, in order, and no part was over the limit.
    const compacted = window.filter((entry) => entry.seq <= record!.throughSeq && entry.kind === 'message' && entry.message.role === 'user').length
    expect(compacted).toBeGreaterThan(15)
    const sent = prompts.join('\n')
    for (let turn = 0; turn < compacted; turn++) expect(sent).toContain(`question ${turn} `)
    expect(sent).not.toContain('characters of transcript omitted')
    for (const prompt of prompts) expect(prompt.slice(prompt.indexOf('into it'), prompt.lastIndexOf('\n\nWrite')).length).toBeLessThan(2_100)
    // Each part merges into the summary of the parts before it, the first into the previous compaction's.
    expect(prompts[0]).toContain('Previous summary:\nEARLIER SUMMARY')
    for (let index = 1; index < prompts.length; index++) expect(prompts[index]).toContain(`merged part ${index}\n\n## Decisions`)
    expect(prompts.at(-1)).toContain(`(part ${prompts.length} of ${prompts.length}, in order)`)
    expect(record?.summary).toContain(`merged part ${prompts.length}`)
  })

  it('a part that fails fails the compaction (the previous summary stays)', async () => {
    const model = mockModel((_request, index) => (index === 1 ? { text: 'I cannot help.' } : { text: sectioned('ok') }))
    await expect(summarizeCompaction({ model, maxTranscriptChars: 2_000 }).compact(input(conversation(20), { targetTokens: 50 }))).rejects.toThrow(
      /none of the sections/,
    )
    expect(model.calls).toHaveLength(2)
  })

  it('returns undefined when no safe cut exists (nothing is sent to the model)', async () => {
    const model = mockModel([])
    const window = log([{ role: 'user', content: 'only one message' }])
    expect(await summarizeCompaction({ model }).compact(input(window))).toBeUndefined()
    expect(model.calls).toHaveLength(0)
  })

  it('an empty, unstructured or failed answer throws (so history is never replaced by it)', async () => {
    const window = conversation(3)
    await expect(summarizeCompaction({ model: mockModel([{ text: '   ' }]) }).compact(input(window))).rejects.toThrow(/empty summary/)
    await expect(summarizeCompaction({ model: mockModel([{ text: 'I cannot help.' }]) }).compact(input(window))).rejects.toThrow(/none of the sections/)
    await expect(summarizeCompaction({ model: mockModel([{ error: new Error('boom') }]) }).compact(input(window))).rejects.toThrow(/boom/)
  })

  it('a summary cut off at maxSummaryTokens throws, so the previous summary is not replaced by a partial one', async () => {
    const window = conversation(3)
    const cutOff = '## Goal\nPlan a trip\n## Constraints\nBudget 900 EUR\n## Progress\nBooked the tra'
    const model = mockModel([{ text: cutOff, finishReason: 'length' }])
    await expect(summarizeCompaction({ model, maxSummaryTokens: 50 }).compact(input(window))).rejects.toThrow(
      /cut off at maxSummaryTokens \(50\); raise maxSummaryTokens/,
    )
    // In the service: truncation instead, carrying the previous summary (with its decisions and next steps) forward.
    const previous = { throughSeq: 0, strategy: 'summarize' as const, summary: sectioned('earlier').replace('Here is the summary.\n', '') }
    const record = await new CompactionService(summarizeCompaction({ model: mockModel([{ text: cutOff, finishReason: 'length' }]) })).compact(
      input(window, { previous }),
    )
    expect(record?.strategy).toBe('truncate')
    expect(record?.summary).toContain('## Next steps\nBook the hotel')
  })

  it('rejects options that cannot work with a ConfigurationError naming them', () => {
    const model = mockModel([])
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /`model` must be a LanguageModel/],
      [{ model, maxSummaryTokens: 0 }, /`maxSummaryTokens` must be an integer of at least 1, got 0/],
      [{ model, maxPartChars: -5 }, /`maxPartChars`/],
      [{ model, maxTranscriptChars: Number.NaN }, /`maxTranscriptChars`/],
      [{ model, timeoutMs: 1.5 }, /`timeoutMs`/],
    ]
    for (const [options, message] of cases) {
      let error: unknown
      try {
        summarizeCompaction(options as never)
      } catch (caught) {
        error = caught
      }
      expect(ConfigurationError.isInstance(error), JSON.stringify(options)).toBe(true)
      expect((error as Error).message).toMatch(message)
    }
  })

  it('honours the abort signal, and the service rethrows it instead of falling back', async () => {
    const controller = new AbortController()
    const model = mockModel([{ text: sectioned('slow'), delayMs: 5_000 }])
    const service = new CompactionService(summarizeCompaction({ model }))
    const pending = service.compact(input(conversation(3), { signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('cancelled by test')), 20)
    const started = Date.now()
    await expect(pending).rejects.toThrow(/cancelled by test/)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('gives up after timeoutMs with a message that says what to do', async () => {
    const model = mockModel([{ text: sectioned('slow'), delayMs: 5_000 }])
    await expect(summarizeCompaction({ model, timeoutMs: 30 }).compact(input(conversation(3)))).rejects.toThrow(/raise timeoutMs/)
  })

  it('in the CompactionService: failures fall back to truncation, and the breaker stops calling the summarizer', async () => {
    let calls = 0
    const model = mockModel(() => {
      calls++
      return { text: '' }
    })
    const service = new CompactionService(summarizeCompaction({ model }), { failureThreshold: 2, cooldownMs: 60_000 })
    const window = conversation(4)
    for (let attempt = 0; attempt < 5; attempt++) {
      const record = await service.compact({ ...input(window), targetTokens: 200 })
      expect(record?.strategy).toBe('truncate')
      expect(record?.summary).toBeUndefined()
    }
    expect(calls).toBe(2)
    expect(service.circuitOpen).toBe(true)
    expect(String(service.lastError)).toMatch(/empty summary/)
  })
})

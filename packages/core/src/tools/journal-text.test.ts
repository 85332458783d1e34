// The journal stores bounded text: a tool failing with a 100,000-character message leaves a record of at most
// maxJournalMessageLength characters, cut with a marker that says how much was cut, through the public API.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel, SpindleError } from '../index.js'
import { boundJournalText, maxJournalCodeLength, maxJournalMessageLength } from '../plugin-kit/index.js'

class HugeError extends SpindleError {
  constructor(message: string, code: string) {
    super(code as never, message)
  }
}

describe('boundJournalText', () => {
  it('keeps short text, cuts long text to the limit with a marker saying how much was cut, never splitting a surrogate pair', () => {
    expect(boundJournalText('short')).toBe('short')
    const long = 'x'.repeat(100_000)
    const bounded = boundJournalText(long)
    expect(bounded).toHaveLength(maxJournalMessageLength)
    const cut = Number(/…\[journal: ([\d,]+) of 100,000 characters cut\]$/.exec(bounded)![1]!.replaceAll(',', ''))
    expect(bounded.indexOf('…[journal') + cut).toBe(100_000)
    for (let shift = 0; shift < 4; shift++) {
      const emoji = `${'a'.repeat(shift)}${'😀'.repeat(60_000)}`
      const result = boundJournalText(emoji)
      expect(result.length).toBeLessThanOrEqual(maxJournalMessageLength)
      const head = result.slice(0, result.indexOf('…[journal'))
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(head), `shift ${shift}`).toBe(false) // well formed: no lone surrogate
      expect(Number(/([\d,]+) of/.exec(result)![1]!.replaceAll(',', '')) + head.length).toBe(emoji.length)
    }
  })
})

describe('the journal through the public API (memory stores)', () => {
  it('stores a 100,000-character error message and a long code bounded, and the run goes on', async () => {
    const message = `getaddrinfo ENOTFOUND ${'h'.repeat(100_000)}`
    const code = `web_${'c'.repeat(1_000)}`
    const fail = defineTool({
      name: 'fail',
      description: 'fails',
      inputSchema: z.object({}),
      execute: () => {
        throw new HugeError(message, code)
      },
    })
    const runtime = new AgentRuntime(new Extensions())
    const model = mockModel((request) =>
      request.messages.some((entry) => entry.role === 'tool') ? { text: 'gave up' } : { toolCalls: [{ name: 'fail', args: {} }] },
    )
    const output = await runtime.run({ agent: { name: 'a', model, tools: { fail } }, input: 'go' })
    expect(output.text).toBe('gave up')
    const [record] = await runtime.executions.listByRun(output.runId)
    expect(record!.status).toBe('failed')
    expect(record!.error!.message).toHaveLength(maxJournalMessageLength)
    expect(record!.error!.message.startsWith('getaddrinfo ENOTFOUND hhh')).toBe(true)
    expect(record!.error!.message.endsWith(` of ${message.length.toLocaleString('en-US')} characters cut]`)).toBe(true)
    expect(record!.error!.code.length).toBeLessThanOrEqual(maxJournalCodeLength)
    expect(record!.error!.code).toMatch(/^web_ccc.*characters cut\]$/)
  })
})

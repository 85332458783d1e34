// The planted-key test, for the telemetry channels: span names, attributes, events, statuses and links, and
// metric attributes carry no secret, even with captureContent on (content comes from redacted events; the chat
// text joined from deltas is redacted again).
import { AgentRuntime, createRedactor, defineTool, Extensions, mockModel, ProviderError } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { telemetry } from './__tests__/telemetry.js'

const planted = 'sk-proj-PLANTEDplantedPLANTED0123456789'
const envSecret = 'hunter2-payments-secret'

describe('redaction in telemetry', () => {
  it('no span or metric attribute carries a planted key (input, tool result, tool error, provider error)', async () => {
    const { spans, histograms, plugin } = telemetry()
    const extensions = new Extensions().use(plugin({ captureContent: true }))
    extensions.redactor = createRedactor({ env: { PAYMENTS_API_TOKEN: envSecret } })
    const runtime = new AgentRuntime(extensions, { modelRetry: { maxRetries: 0 } })
    const leak = defineTool({ name: 'leak', description: 'l', inputSchema: z.object({}), execute: () => ({ token: planted, other: envSecret }) })
    const fail = defineTool({
      name: 'fail',
      description: 'f',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error(`refused Authorization: Bearer ${planted} ${envSecret}`)
      },
    })
    const model = mockModel([
      {
        text: `echo ${planted}`,
        chunkSize: 1000,
        toolCalls: [
          { name: 'leak', args: {} },
          { name: 'fail', args: {} },
        ],
      },
      { error: new ProviderError(`401 invalid key ${planted} ${envSecret}`, { status: 401 }) },
    ])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { leak, fail } }, input: `key ${planted} ${envSecret}` })
    expect(output.finishReason).toBe('error')
    const all = spans()
    // invoke_agent, two chat spans (the second failed), two execute_tool spans.
    expect(all.length).toBe(5)
    const text = JSON.stringify(
      all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })),
    )
    expect(text).not.toContain(planted)
    expect(text).not.toContain(envSecret)
    // Content really was captured (redacted), so the search above had something to find.
    expect(text).toContain('[REDACTED]')
    expect(text).toContain('gen_ai.tool.call.result')
    const metrics = JSON.stringify([...(await histograms()).values()].map((metric) => metric.dataPoints.map((point) => point.attributes)))
    expect(metrics.length).toBeGreaterThan(20)
    expect(metrics).not.toContain(planted)
    expect(metrics).not.toContain(envSecret)
  })

  it('a key the model streams split across text deltas is redacted in the chat span, whose text joins them', async () => {
    const split = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234'
    const { spans, plugin } = telemetry()
    const extensions = new Extensions().use(plugin({ captureContent: true }))
    // Set after the plugin: the observer reads the extensions' redactor when it uses it.
    extensions.redactor = createRedactor({ env: { PAYMENTS_API_TOKEN: envSecret } })
    const runtime = new AgentRuntime(extensions)
    const model = mockModel([{ text: `your key is ${split}, the payments one ${envSecret}`, chunkSize: 8 }])
    const stream = runtime.stream({ agent: { name: 'a', model }, input: 'what are my keys?' })
    const deltas: string[] = []
    for await (const event of stream) if (event.type === 'text.delta') deltas.push(event.delta)
    expect((await stream.result).finishReason).toBe('stop')
    // No 8-character delta holds either secret whole: the kernel holds each word back until it ends, so the
    // deltas carry the replacement, and so does the chat span that joins them.
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe('your key is [REDACTED], the payments one [REDACTED]')
    const all = spans()
    const text = JSON.stringify(
      all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })),
    )
    expect(text).not.toContain(split)
    expect(text).not.toContain(envSecret)
    const chat = all.find((span) => span.attributes['gen_ai.operation.name'] === 'chat')!
    expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'your key is [REDACTED], the payments one [REDACTED]' }], finish_reason: 'stop' },
    ])
  })

  it('with redaction turned off (extensions.redactor = false) the chat span keeps the text as streamed', async () => {
    const { spans, plugin } = telemetry()
    const extensions = new Extensions().use(plugin({ captureContent: true }))
    extensions.redactor = false
    const model = mockModel([{ text: `echo ${planted}`, chunkSize: 8 }])
    await new AgentRuntime(extensions).run({ agent: { name: 'a', model }, input: 'x' })
    const chat = spans().find((span) => span.attributes['gen_ai.operation.name'] === 'chat')!
    expect(chat.attributes['gen_ai.output.messages']).toContain(planted)
  })
})

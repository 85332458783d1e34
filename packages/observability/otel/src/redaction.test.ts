// The planted-key test, for the telemetry channels: span names, attributes, events, statuses and links, and
// metric attributes carry no secret, even with captureContent on (content comes from redacted events).
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
      { text: `echo ${planted}`, chunkSize: 1000, toolCalls: [{ name: 'leak', args: {} }, { name: 'fail', args: {} }] },
      { error: new ProviderError(`401 invalid key ${planted} ${envSecret}`, { status: 401 }) },
    ])
    const output = await runtime.run({ agent: { name: 'a', model, tools: { leak, fail } }, input: `key ${planted} ${envSecret}` })
    expect(output.finishReason).toBe('error')
    const all = spans()
    // invoke_agent, two chat spans (the second failed), two execute_tool spans.
    expect(all.length).toBe(5)
    const text = JSON.stringify(all.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })))
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
})

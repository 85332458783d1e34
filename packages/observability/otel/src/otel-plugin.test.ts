// The OpenTelemetry SDK with an in-memory span exporter and metric reader: the span tree and attributes of a
// run with two tool calls, an approval suspend and a resume (in-process and in a "restarted" process), a
// sub-agent under its tool span, and metrics.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { Agent, AgentRuntime, defineTool, Extensions, memoryStores, mockModel, type Stores } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { otelPlugin, runSpanContext } from './index.js'
import { telemetry } from './__tests__/telemetry.js'

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name)
const idOf = (span: ReadableSpan) => span.spanContext().spanId
const millis = (span: ReadableSpan) => span.startTime[0] * 1000 + span.startTime[1] / 1e6

function approvalAgent() {
  const lookup = defineTool({ name: 'lookup', description: 'looks up', inputSchema: z.object({ q: z.string() }), execute: ({ q }) => ({ found: q }) })
  const pay = defineTool({
    name: 'pay',
    description: 'pays',
    inputSchema: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: ({ amount }) => ({ paid: amount }),
  })
  const model = mockModel(
    [
      {
        toolCalls: [
          { name: 'lookup', args: { q: 'invoice 7' }, id: 'c_lookup' },
          { name: 'pay', args: { amount: 42 }, id: 'c_pay' },
        ],
        usage: { inputTokens: 120, outputTokens: 30 },
      },
      { text: 'Paid invoice 7.', usage: { inputTokens: 200, outputTokens: 12 } },
    ],
    { provider: 'openai', modelId: 'gpt-4o-mini' },
  )
  return { name: 'cashier', instructions: 'Pay invoices.', model, tools: { lookup, pay } }
}

describe('otelPlugin', () => {
  it('traces a run with two tool calls, an approval suspend and a resume: span tree, GenAI attributes, links', async () => {
    const { spans, histograms, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin()))
    const agent = approvalAgent()
    const first = await runtime.run({ agent, input: 'Pay invoice 7', sessionId: 'ses_otel' })
    expect(first.finishReason).toBe('awaiting_approval')
    await runtime.approve(first.runId, 'c_pay', { approved: true })
    const output = await runtime.resume(first.runId)
    expect(output).toMatchObject({ finishReason: 'stop', text: 'Paid invoice 7.' })

    const all = spans()
    expect(all.map((span) => span.name).sort()).toEqual(
      ['chat gpt-4o-mini', 'chat gpt-4o-mini', 'execute_tool lookup', 'execute_tool pay', 'invoke_agent cashier', 'invoke_agent cashier'].sort(),
    )
    expect(all.every((span) => span.ended)).toBe(true)
    const identity = runSpanContext(first.runId)
    // One trace per run, whatever the process: the trace id is derived from the run id.
    expect(new Set(all.map((span) => span.spanContext().traceId))).toEqual(new Set([identity.traceId]))

    const [started, resumed] = byName(all, 'invoke_agent cashier').sort((a, b) => millis(a) - millis(b))
    for (const execution of [started!, resumed!]) {
      expect(execution.parentSpanContext?.spanId).toBe(identity.spanId)
      expect(execution.kind).toBe(SpanKind.INTERNAL)
      expect(execution.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'cashier',
        'gen_ai.conversation.id': 'ses_otel',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'spindle.run.id': first.runId,
      })
    }
    expect(started!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['awaiting_approval'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'spindle.run.steps': 1,
    })
    expect(started!.events.map((event) => [event.name, event.attributes?.['gen_ai.tool.call.id']])).toEqual([['spindle.approval.requested', 'c_pay']])
    expect(resumed!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 320,
      'gen_ai.usage.output_tokens': 42,
      'spindle.run.steps': 2,
      'spindle.resumed_from_step': 1,
    })
    // The resumed execution links to the original execution's span.
    expect(resumed!.links.map((link) => [link.context.spanId, link.attributes?.['spindle.link.type']])).toEqual([[idOf(started!), 'resumed_from']])

    const [chat1, chat2] = byName(all, 'chat gpt-4o-mini').sort((a, b) => millis(a) - millis(b))
    expect(chat1!.parentSpanContext?.spanId).toBe(idOf(started!))
    expect(chat2!.parentSpanContext?.spanId).toBe(idOf(resumed!))
    expect(chat1!.kind).toBe(SpanKind.CLIENT)
    expect(chat1!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'spindle.step': 1,
    })
    // Cost from the price table (openai:gpt-4o-mini), per model call.
    expect(chat1!.attributes['spindle.usage.cost_usd']).toBeCloseTo((120 * 0.15 + 30 * 0.6) / 1e6, 12)
    expect(chat2!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.response.finish_reasons': ['stop'],
      'spindle.step': 2,
    })

    for (const [name, callId] of [
      ['lookup', 'c_lookup'],
      ['pay', 'c_pay'],
    ] as const) {
      const [tool] = byName(all, `execute_tool ${name}`)
      expect(tool!.parentSpanContext?.spanId).toBe(idOf(resumed!))
      expect(tool!.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.type': 'function',
      })
      expect(tool!.status.code).not.toBe(SpanStatusCode.ERROR)
    }
    // Content is off by default.
    expect(
      all.some((span) =>
        Object.keys(span.attributes).some(
          (key) => key.endsWith('.messages') || key.startsWith('gen_ai.tool.call.arg') || key.startsWith('gen_ai.tool.call.res'),
        ),
      ),
    ).toBe(false)

    const metrics = await histograms()
    const count = (name: string) => metrics.get(name)?.dataPoints.reduce((sum, point) => sum + point.value.count, 0)
    expect(count('gen_ai.client.operation.duration')).toBe(2)
    expect(count('gen_ai.client.token.usage')).toBe(4)
    expect(count('spindle.tool.duration')).toBe(2)
    expect(count('spindle.run.duration')).toBe(2)
    const steps = metrics.get('spindle.run.steps')!.dataPoints.find((point) => point.attributes['spindle.finish_reason'] === 'stop')
    expect(steps?.value.sum).toBe(2)
    const inputTokens = metrics.get('gen_ai.client.token.usage')!.dataPoints.find((point) => point.attributes['gen_ai.token.type'] === 'input')
    expect(inputTokens?.value.sum).toBe(320)
  })

  it('a resume in another process (fresh runtime and plugin on the same stores) joins the same trace and links to the run', async () => {
    const { spans, plugin } = telemetry()
    const stores: Stores = memoryStores()
    const agent = approvalAgent()
    const before = new AgentRuntime(new Extensions().setStores(stores).use(plugin()))
    const first = await before.run({ agent, input: 'Pay invoice 7' })
    const after = new AgentRuntime(new Extensions().setStores(stores).use(plugin()))
    await after.approve(first.runId, 'c_pay', true)
    const output = await after.resume(first.runId, { agent })
    expect(output.finishReason).toBe('stop')
    const identity = runSpanContext(first.runId)
    const executions = byName(spans(), 'invoke_agent cashier').sort((a, b) => millis(a) - millis(b))
    expect(executions).toHaveLength(2)
    expect(executions.map((span) => span.spanContext().traceId)).toEqual([identity.traceId, identity.traceId])
    expect(executions[1]!.links.map((link) => link.context.spanId)).toEqual([identity.spanId])
    // The agent and model are known from the run.resumed event, not from memory of the first process.
    expect(executions[1]!.attributes).toMatchObject({ 'gen_ai.agent.name': 'cashier', 'gen_ai.request.model': 'gpt-4o-mini' })
  })

  it('a sub-agent run is traced under the execute_tool span of the parent tool that ran it', async () => {
    const { spans, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin()))
    const researcher = new Agent({ name: 'researcher', model: mockModel([{ text: 'It is 42.' }], { provider: 'anthropic', modelId: 'claude-haiku-4-5' }) })
    const lead = mockModel([{ toolCalls: [{ name: 'researcher', args: { prompt: 'find it' }, id: 'c_sub' }] }, { text: 'The answer is 42.' }], {
      provider: 'openai',
      modelId: 'gpt-4o',
    })
    const output = await runtime.run({ agent: { name: 'lead', model: lead, tools: { researcher: researcher.asTool() } }, input: 'question' })
    expect(output.text).toBe('The answer is 42.')
    const all = spans()
    const [tool] = byName(all, 'execute_tool researcher')
    const [sub] = byName(all, 'invoke_agent researcher')
    const [parent] = byName(all, 'invoke_agent lead')
    expect(sub!.parentSpanContext?.spanId).toBe(idOf(tool!))
    expect(tool!.parentSpanContext?.spanId).toBe(idOf(parent!))
    expect(sub!.spanContext().traceId).toBe(parent!.spanContext().traceId)
    expect(sub!.attributes).toMatchObject({
      'spindle.parent_run.id': output.runId,
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-haiku-4-5',
    })
    const [subChat] = byName(all, 'chat claude-haiku-4-5')
    expect(subChat!.parentSpanContext?.spanId).toBe(idOf(sub!))
  })

  it('parallel calls of one sub-agent each put their run under their own execute_tool span', async () => {
    const { spans, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin()))
    const researcher = new Agent({ name: 'researcher', model: mockModel(() => ({ text: 'It is 42.', delayMs: 20 })) })
    const lead = mockModel([
      {
        toolCalls: [
          { name: 'researcher', args: { prompt: 'a' }, id: 'c_1' },
          { name: 'researcher', args: { prompt: 'b' }, id: 'c_2' },
          { name: 'researcher', args: { prompt: 'c' }, id: 'c_3' },
        ],
      },
      { text: 'done' },
    ])
    await runtime.run({ agent: { name: 'lead', model: lead, tools: { researcher: researcher.asTool() } }, input: 'question' })
    const all = spans()
    const tools = byName(all, 'execute_tool researcher')
    const subs = byName(all, 'invoke_agent researcher')
    expect(tools).toHaveLength(3)
    expect(subs).toHaveLength(3)
    // One sub-run under each tool span, none left without its sub-run.
    expect(subs.map((sub) => sub.parentSpanContext?.spanId).sort()).toEqual(tools.map(idOf).sort())
  })

  it('captureContent records input, output, tool arguments and results; a tool error marks its span', async () => {
    const { spans, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin({ captureContent: true })))
    const echo = defineTool({ name: 'echo', description: 'e', inputSchema: z.object({ v: z.string() }), execute: ({ v }) => ({ echoed: v }) })
    const boom = defineTool({
      name: 'boom',
      description: 'fails',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('kaput')
      },
    })
    const model = mockModel(
      [
        {
          toolCalls: [
            { name: 'echo', args: { v: 'hi' } },
            { name: 'boom', args: {} },
          ],
        },
        { text: 'All done.' },
      ],
      { modelId: 'm' },
    )
    await runtime.run({ agent: { name: 'a', model, tools: { echo, boom } }, input: 'say hi' })
    const all = spans()
    const [run] = byName(all, 'invoke_agent a')
    expect(JSON.parse(run!.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'say hi' }] }])
    expect(run!.attributes['gen_ai.output.messages']).toContain('All done.')
    const [echoSpan] = byName(all, 'execute_tool echo')
    expect(JSON.parse(echoSpan!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ v: 'hi' })
    expect(JSON.parse(echoSpan!.attributes['gen_ai.tool.call.result'] as string)).toEqual({ echoed: 'hi' })
    const [boomSpan] = byName(all, 'execute_tool boom')
    expect(boomSpan!.status).toMatchObject({ code: SpanStatusCode.ERROR })
    expect(boomSpan!.status.message).toContain('kaput')
    expect(boomSpan!.attributes['error.type']).toBe('tool')
    const chats = byName(all, 'chat m').sort((a, b) => millis(a) - millis(b))
    expect(chats[1]!.attributes['gen_ai.output.messages']).toContain('All done.')
  })

  it('a failed run sets an error status and error.type on its span', async () => {
    const { spans, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin()), { modelRetry: { maxRetries: 0 } })
    const model = mockModel([{ error: new Error('provider down') }])
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'x' })
    expect(output.finishReason).toBe('error')
    const [run] = byName(spans(), 'invoke_agent a')
    expect(run!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'provider down' })
    expect(run!.attributes).toMatchObject({ 'error.type': 'error', 'gen_ai.response.finish_reasons': ['error'] })
    expect(byName(spans(), 'chat mock-model')).toHaveLength(1)
  })

  it('records session-gate wait (start and resume) and run-queue wait as histograms in ms, by agent', async () => {
    const { histograms, plugin } = telemetry()
    const runtime = new AgentRuntime(new Extensions().use(plugin()))
    const slow = { name: 'slow', model: mockModel(() => ({ text: 'done', delayMs: 30 })) }
    // Two runs on one session at once: the second waits for the gate while the first runs.
    const first = runtime.run({ agent: slow, input: 'one', sessionId: 'ses_gate' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = await runtime.run({ agent: slow, input: 'two', sessionId: 'ses_gate' })
    expect((await first).finishReason).toBe('stop')
    expect(second.finishReason).toBe('stop')
    // A queued run, started by a worker after 20 ms.
    const queuedAgent = { name: 'queued', model: mockModel([{ text: 'later' }]) }
    const { runId } = await runtime.enqueue({ agent: queuedAgent, input: 'three' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const controller = new AbortController()
    const working = runtime.work({ signal: controller.signal, agents: [queuedAgent] })
    for (;;) {
      if ((await runtime.runs.getRun(runId))?.status === 'completed') break
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    controller.abort()
    await working
    // A resume also reports its gate wait.
    const cashier = approvalAgent()
    const suspended = await runtime.run({ agent: cashier, input: 'Pay invoice 7' })
    await runtime.approve(suspended.runId, 'c_pay', true)
    expect((await runtime.resume(suspended.runId)).finishReason).toBe('stop')

    const metrics = await histograms()
    const gate = metrics.get('spindle.gate.wait')!
    const queue = metrics.get('spindle.queue.wait')!
    expect(gate.descriptor.unit).toBe('ms')
    expect(queue.descriptor.unit).toBe('ms')
    const point = (data: typeof gate, agent: string) => data.dataPoints.find((p) => p.attributes['gen_ai.agent.name'] === agent)
    // slow: two starts, one of which waited for the other (> 10 ms of its 30 ms model call).
    expect(point(gate, 'slow')?.value.count).toBe(2)
    expect(point(gate, 'slow')?.value.max).toBeGreaterThan(10)
    expect(point(gate, 'queued')?.value.count).toBe(1)
    // cashier: its start and its resume.
    expect(point(gate, 'cashier')?.value.count).toBe(2)
    // Only the queued run has a queue wait, of at least the 20 ms before work() began.
    expect(queue.dataPoints).toHaveLength(1)
    expect(point(queue, 'queued')?.value.count).toBe(1)
    expect(point(queue, 'queued')?.value.sum).toBeGreaterThanOrEqual(20)
  })

  it('with no SDK registered, the plugin is a no-op and the run is unaffected', async () => {
    const runtime = new AgentRuntime(new Extensions().use(otelPlugin()))
    const output = await runtime.run({ agent: { name: 'a', model: mockModel([{ text: 'fine' }]) }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'fine' })
  })
})

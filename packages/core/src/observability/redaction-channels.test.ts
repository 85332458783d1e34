// A planted key (in the input, a tool result, a tool error and a provider error) is searched for in every
// output channel. Redacted: stream, subscribe, run event log, run record (error), snapshots (error and the answer
// so far: runtime/resume.test.ts plants a key in a final answer), observers, the run output's error. Kept (documented): the session log, the run record's copy of the input and the tool
// journal — the model's memory and the resume data, which a resumed run must replay unchanged. Tool call
// arguments are resume data too (a snapshot's pending calls), so they are not planted here. A key the model streams
// a few characters per delta is caught too: streamed text is held back to the end of each word.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, createRedactor, defineTool, Extensions, mockModel, ProviderError, type AgentEvent } from '../index.js'

const planted = 'sk-ant-api03-PLANTEDplantedPLANTED0123'
const envSecret = 'hunter2-payments-secret'

/** Runs `request` with a stream consumer, a subscriber and an observer: what each of them saw. */
async function observedRun(extensions: Extensions, request: (runtime: AgentRuntime) => ReturnType<AgentRuntime['stream']>) {
  const observed: AgentEvent[] = []
  extensions.addObserver({ onEvent: (event) => observed.push(event) })
  const runtime = new AgentRuntime(extensions, { modelRetry: { maxRetries: 0 } })
  const controller = new AbortController()
  const subscribed: AgentEvent[] = []
  const subscription = (async () => {
    for await (const event of runtime.subscribe({ capacity: 10_000, signal: controller.signal })) subscribed.push(event as AgentEvent)
  })().catch(() => {})
  const stream = request(runtime)
  const streamed: AgentEvent[] = []
  for await (const event of stream) streamed.push(event)
  const output = await stream.result
  await new Promise((resolve) => setTimeout(resolve, 10))
  controller.abort()
  await subscription
  return { runtime, output, streamed, subscribed, observed }
}

function plantedRun(extensions: Extensions) {
  const leak = defineTool({ name: 'leak', description: 'returns secrets', inputSchema: z.object({}), execute: () => ({ token: planted, other: envSecret }) })
  const fail = defineTool({
    name: 'fail',
    description: 'fails with a secret',
    inputSchema: z.object({}),
    execute: () => {
      throw new Error(`upstream refused Authorization: Bearer ${planted} (${envSecret})`)
    },
  })
  const model = mockModel([
    {
      text: `echo ${planted}`,
      chunkSize: 1000,
      toolCalls: [
        { name: 'leak', args: {}, id: 'c1' },
        { name: 'fail', args: {}, id: 'c2' },
      ],
    },
    { error: new ProviderError(`401: invalid x-api-key ${planted} / ${envSecret}`, { status: 401 }) },
  ])
  return observedRun(extensions, (runtime) =>
    runtime.stream({ agent: { name: 'a', model, tools: { leak, fail } }, input: `my key is ${planted} and ${envSecret}`, sessionId: 'ses_leak' }),
  )
}

describe('redaction across output channels', () => {
  it('no channel for observation carries the planted secrets', async () => {
    const extensions = new Extensions()
    extensions.redactor = createRedactor({ env: { PAYMENTS_API_TOKEN: envSecret } })
    const { runtime, output, streamed, subscribed, observed } = await plantedRun(extensions)
    expect(output.finishReason).toBe('error')
    const run = await runtime.runs.getRun(output.runId)
    const { request, ...runWithoutRequest } = run!
    const channels: Record<string, unknown> = {
      stream: streamed,
      subscribe: subscribed,
      eventLog: await runtime.runs.listEvents(output.runId),
      runRecord: runWithoutRequest,
      snapshots: await runtime.snapshots.list(output.runId),
      observers: observed,
      outputError: output.error,
    }
    for (const [name, value] of Object.entries(channels)) {
      const text = JSON.stringify(value)
      expect(text, name).not.toContain(planted)
      expect(text, name).not.toContain(envSecret)
      expect(text.length, name).toBeGreaterThan(10)
    }
    // The channels were really searched: the places the secrets were planted show the marker instead.
    const types = new Set(streamed.map((event) => event.type))
    for (const type of ['run.started', 'text.delta', 'tool.call', 'tool.result', 'tool.error', 'run.failed'] as const) expect(types.has(type), type).toBe(true)
    expect(JSON.stringify(streamed.find((event) => event.type === 'tool.result'))).toContain('[REDACTED]')
    expect(JSON.stringify(streamed.find((event) => event.type === 'tool.error'))).toContain('Authorization: [REDACTED]')
    expect(run?.error?.message).toContain('invalid x-api-key [REDACTED]')
    expect(observed).toEqual(streamed)
    // Decision, documented: the session log is the model's memory (and the tool journal / the request's input
    // copy are resume data): they keep the content, or a resumed run would replay altered arguments and results.
    const log = JSON.stringify(await runtime.sessions.listEntries('ses_leak'))
    expect(log).toContain(planted)
    expect(JSON.stringify(request)).toContain(planted)
  })

  it('redaction is on by default (built-in patterns) and `redactor = false` turns it off', async () => {
    const on = await plantedRun(new Extensions())
    expect(JSON.stringify(on.streamed)).not.toContain(planted)
    const off = new Extensions()
    off.redactor = false
    const raw = await plantedRun(off)
    expect(JSON.stringify(raw.streamed)).toContain(planted)
    expect(raw.output.error?.message).toContain(planted)
  })

  it('a key the model streams a few characters per delta reaches no channel, and the text around it streams on', async () => {
    const extensions = new Extensions()
    extensions.redactor = createRedactor({ env: { PAYMENTS_API_TOKEN: envSecret } })
    const text = `Your key is ${planted} and the token is ${envSecret}. Nothing else to add here.`
    const { runtime, output, streamed, subscribed, observed } = await observedRun(extensions, (runtime) =>
      runtime.stream({ agent: { name: 'a', model: mockModel([{ text, chunkSize: 3 }]) }, input: 'what is my key?' }),
    )
    const deltas = streamed.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []))
    expect(deltas.join('')).toBe('Your key is [REDACTED] and the token is [REDACTED]. Nothing else to add here.')
    expect(deltas.length).toBeGreaterThan(10)
    // The caller's own output keeps the text; the run.finished event carries what the deltas did.
    expect(output.text).toBe(text)
    expect(streamed.at(-1)).toMatchObject({ type: 'run.finished', text: deltas.join('') })
    for (const [name, events] of Object.entries({
      stream: streamed,
      subscribe: subscribed,
      eventLog: await runtime.runs.listEvents(output.runId),
      observers: observed,
    })) {
      const serialized = JSON.stringify(events)
      expect(serialized, name).toContain('text.delta')
      for (const piece of [planted.slice(-12), envSecret.slice(-10)]) expect(serialized, name).not.toContain(piece)
    }
  })

  it('a long unbroken word streams in several deltas with redaction on, and a key inside it is still hidden', async () => {
    const word = `${'Zm9vYmFy+YmF6/cXV4='.repeat(20)}/${planted}/${'cXV4YmF6='.repeat(30)}`
    const extensions = new Extensions()
    extensions.redactor = createRedactor({ env: {} })
    const { output, streamed } = await observedRun(extensions, (runtime) =>
      runtime.stream({ agent: { name: 'a', model: mockModel([{ text: word, chunkSize: 1 }]) }, input: 'encode it' }),
    )
    const deltas = streamed.flatMap((event) => (event.type === 'text.delta' ? [event.delta] : []))
    expect(deltas.length).toBeGreaterThanOrEqual(3) // was one delta, at the end of the answer
    expect(Math.max(...deltas.map((delta) => delta.length))).toBeLessThanOrEqual(256)
    expect(deltas.join('')).toBe(word.replace(planted, '[REDACTED]'))
    expect(output.text).toBe(word)
  })
})

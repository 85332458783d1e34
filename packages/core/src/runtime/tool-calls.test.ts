// Tool execution through the run loop: invalid arguments, unknown tools, timeouts, parallelism, order, truncation.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel, type ToolResultPart } from '../index.js'
import { readArtifactBytes } from '../plugin-kit/index.js'

const add = defineTool({
  name: 'add',
  description: 'adds',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
  idempotent: true,
})

function toolResults(model: ReturnType<typeof mockModel>, callIndex: number): ToolResultPart[] {
  const message = model.calls[callIndex]?.messages.findLast((entry) => entry.role === 'tool')
  return message?.role === 'tool' ? message.content : []
}

describe('tool calls', () => {
  it('malformed JSON, wrong types and an unknown tool go back to the model as tool errors; the run continues', async () => {
    const model = mockModel([
      {
        toolCalls: [
          { name: 'add', args: '{"a": 1, "b":', id: 'bad-json' },
          { name: 'add', args: { a: 'one', b: 2 }, id: 'bad-type' },
          { name: 'nope', args: {}, id: 'unknown' },
          { name: 'add', args: { a: 1, b: 2 }, id: 'good' },
        ],
      },
      { text: 'done' },
    ])
    const output = await new AgentRuntime().run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(output).toMatchObject({ finishReason: 'stop', text: 'done' })
    const results = toolResults(model, 1)
    expect(results.map((result) => result.toolCallId)).toEqual(['bad-json', 'bad-type', 'unknown', 'good'])
    expect(results[0]).toMatchObject({ isError: true })
    expect(JSON.stringify(results[0]?.result)).toContain('Invalid JSON')
    expect((results[1]!.result as { error: string }).error).toMatch(/Invalid arguments for "add":\n.*expected number/)
    expect(JSON.stringify(results[2]?.result)).toContain('Available tools: add')
    expect(results[3]).toMatchObject({ result: 3 })
    expect(results[3]?.isError).toBeUndefined()
  })

  it('parallel calls respect maxParallelTools, keep call order, and one failure never cancels its siblings', async () => {
    let running = 0
    let peak = 0
    const slow = defineTool({
      name: 'slow',
      description: 's',
      inputSchema: z.object({ ms: z.number(), fail: z.boolean().optional() }),
      async execute({ ms, fail }) {
        running++
        peak = Math.max(peak, running)
        await new Promise((resolve) => setTimeout(resolve, ms))
        running--
        if (fail) throw new Error('this one fails')
        return ms
      },
    })
    const model = mockModel([
      { toolCalls: [30, 5, 20, 1, 10].map((ms, index) => ({ name: 'slow', args: { ms, fail: index === 1 }, id: `c${index}` })) },
      { text: 'ok' },
    ])
    const runtime = new AgentRuntime(new Extensions(), { maxParallelTools: 2 })
    await runtime.run({ agent: { name: 'a', model, tools: { slow } }, input: 'x' })
    expect(peak).toBe(2)
    const results = toolResults(model, 1)
    expect(results.map((result) => result.toolCallId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4'])
    expect(results.map((result) => (result.isError ? 'error' : result.result))).toEqual([30, 'error', 20, 1, 10])
  })

  it('a tool over its timeout gets a timeout error and its signal is aborted', async () => {
    let aborted = false
    const hang = defineTool({
      name: 'hang',
      description: 'h',
      inputSchema: z.object({}),
      timeoutMs: 30,
      execute: (_input, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true
            resolve('too late')
          })
        }),
    })
    const model = mockModel([{ toolCalls: [{ name: 'hang', args: {} }] }, { text: 'moved on' }])
    const runtime = new AgentRuntime()
    const output = await runtime.run({ agent: { name: 'a', model, tools: { hang } }, input: 'x' })
    expect(output.text).toBe('moved on')
    expect(aborted).toBe(true)
    expect(JSON.stringify(toolResults(model, 1))).toContain('timed out after 30 ms')
    const [record] = await runtime.executions.listByRun(output.runId)
    expect(record?.status).toBe('failed')
  })

  it("a tool gets its call's context; a spread of it keeps the signal, which a cancelled run aborts", async () => {
    const seen: Array<Record<string, unknown>> = []
    let release: (() => void) | undefined
    const probe = defineTool({
      name: 'probe',
      description: 'p',
      inputSchema: z.object({}),
      execute: (_input, context) => {
        // A wrapper that passes a copy of the context on, as middleware does.
        const copy = { ...context, via: 'wrapper' }
        seen.push(copy)
        return new Promise((resolve) => {
          release = () => resolve('released')
          copy.signal.addEventListener('abort', () => resolve('aborted'), { once: true })
        })
      },
    })
    const model = mockModel([{ toolCalls: [{ name: 'probe', args: {}, id: 'c1' }] }, { text: 'done' }])
    const runtime = new AgentRuntime()
    const controller = new AbortController()
    const running = runtime.run({ agent: { name: 'a', model, tools: { probe } }, input: 'x', signal: controller.signal })
    await expect.poll(() => seen.length).toBe(1)
    const context = seen[0]!
    expect(Object.keys(context).sort()).toEqual([
      'artifacts',
      'callId',
      'idempotencyKey',
      'nested',
      'runId',
      'runtime',
      'sessionId',
      'signal',
      'step',
      'toolName',
      'via',
    ])
    expect(context).toMatchObject({ callId: 'c1', toolName: 'probe', step: 1, idempotencyKey: `${context.runId}:1:c1` })
    expect(context.signal).toBeInstanceOf(AbortSignal)
    expect((context.signal as AbortSignal).aborted).toBe(false)
    controller.abort()
    const output = await running
    expect(output.finishReason).toBe('cancelled')
    expect((context.signal as AbortSignal).aborted).toBe(true)
    expect(release).toBeDefined()
  })

  it('huge output is truncated head-and-tail in the context and kept whole as an artifact', async () => {
    const big = 'HEAD' + 'x'.repeat(100_000) + 'TAIL'
    const dump = defineTool({ name: 'dump', description: 'd', inputSchema: z.object({}), execute: () => big })
    const model = mockModel([{ toolCalls: [{ name: 'dump', args: {} }] }, { text: 'ok' }])
    const runtime = new AgentRuntime(new Extensions(), { maxToolOutputBytes: 2_000 })
    await runtime.run({ agent: { name: 'a', model, tools: { dump } }, input: 'x' })
    const [result] = toolResults(model, 1)
    const text = String(result?.result)
    expect(text.length).toBeLessThan(2_500)
    expect(text.startsWith('HEAD')).toBe(true)
    expect(text.endsWith('TAIL')).toBe(true)
    const artifactId = /artifact ([0-9a-f]{64})/.exec(text)?.[1]
    expect(artifactId).toBeDefined()
    const bytes = await readArtifactBytes(runtime.artifacts, artifactId!)
    expect(Buffer.from(bytes).toString('utf8')).toBe(big)
  })

  it('output at the byte limit enters the context whole, one byte over is truncated (numbers, ASCII and multi-byte strings)', async () => {
    const outputs: unknown[] = [12345, 'a'.repeat(40), 'é'.repeat(20), 'é'.repeat(21), 'a'.repeat(41), { list: 'z'.repeat(40) }]
    const echo = defineTool({
      name: 'out',
      description: 'o',
      inputSchema: z.object({ index: z.number() }),
      maxOutputBytes: 40,
      execute: ({ index }) => outputs[index] as never,
    })
    const model = mockModel([...outputs.map((_, index) => ({ toolCalls: [{ name: 'out', args: { index } }] })), { text: 'ok' }])
    const runtime = new AgentRuntime(new Extensions(), { maxSteps: 10, maxToolCalls: 10 })
    await runtime.run({ agent: { name: 'a', model, tools: { out: echo } }, input: 'x' })
    const results = outputs.map((_, index) => toolResults(model, index + 1)[0]?.result)
    // 'é' is 2 bytes in UTF-8: 20 of them are 40 bytes (whole), 21 are 42 (truncated).
    expect(results.slice(0, 3)).toEqual([12345, 'a'.repeat(40), 'é'.repeat(20)])
    for (const cut of [results[3], results[4], results[5]]) expect(String(cut)).toMatch(/truncated/)
  })

  it('the journal records started then succeeded with the idempotency key passed to the tool', async () => {
    const keys: string[] = []
    const record = defineTool({ name: 'record', description: 'r', inputSchema: z.object({}), execute: (_input, context) => keys.push(context.idempotencyKey) })
    const model = mockModel([{ toolCalls: [{ name: 'record', args: {}, id: 'k1' }] }, { text: 'ok' }])
    const runtime = new AgentRuntime()
    const output = await runtime.run({ agent: { name: 'a', model, tools: { record } }, input: 'x' })
    expect(keys).toEqual([`${output.runId}:1:k1`])
    const journal = await runtime.executions.listByRun(output.runId)
    expect(journal).toEqual([expect.objectContaining({ key: keys[0], status: 'succeeded', result: 1, toolName: 'record' })])
  })

  it('deny with onViolation "tool_error" returns an error to the model and continues', async () => {
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, { text: 'fine' }])
    const runtime = new AgentRuntime(new Extensions(), { tools: { allow: ['other'] } })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(output.text).toBe('fine')
    expect(JSON.stringify(toolResults(model, 1))).toContain('not allowed by the runtime policy')
  })

  it('the tools the policy refuses to run are not offered, and truncated output names read_artifact only when it is', async () => {
    const dump = defineTool({ name: 'dump', description: 'd', inputSchema: z.object({}), execute: () => 'y'.repeat(100_000) })
    const model = mockModel([{ toolCalls: [{ name: 'dump', args: {} }] }, { text: 'done' }])
    const runtime = new AgentRuntime(new Extensions(), { tools: { allow: ['dump'] }, onViolation: 'stop' })
    const output = await runtime.run({ agent: { name: 'a', model, tools: { dump, add } }, input: 'x' })
    expect(output.finishReason).toBe('stop')
    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual(['dump'])
    const [truncated] = toolResults(model, 1)
    expect(String(truncated?.result)).toContain('[truncated')
    expect(String(truncated?.result)).not.toContain('read_artifact')
    const denied = mockModel([{ text: 'ok' }])
    await new AgentRuntime(new Extensions(), { tools: { deny: ['add'] } }).run({ agent: { name: 'a', model: denied, tools: { dump, add } }, input: 'x' })
    expect(denied.calls[0]?.tools?.map((tool) => tool.name)).toEqual(['dump', 'read_artifact'])
  })

  it('the model sees the tools as JSON Schema from zod', async () => {
    const model = mockModel([{ text: 'ok' }])
    await new AgentRuntime().run({ agent: { name: 'a', model, tools: { add } }, input: 'x' })
    expect(model.calls[0]?.tools).toEqual([
      expect.objectContaining({ name: 'add', inputSchema: expect.objectContaining({ type: 'object', required: ['a', 'b'] }) }),
      expect.objectContaining({ name: 'read_artifact' }),
    ])
    // The answer is asked to fit the room the context budget keeps free.
    expect(model.calls[0]?.maxOutputTokens).toBe(8_192)
  })
})

describe('read_artifact', () => {
  it('is added to runs with tools (unless turned off) and reads truncated output back', async () => {
    const big = Array.from({ length: 2_000 }, (_, index) => `line ${index}`).join('\n')
    const dump = defineTool({ name: 'dump', description: 'd', inputSchema: z.object({}), execute: () => big })
    const model = mockModel((request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'dump', args: {} }] }
      if (index === 1) {
        const id = /artifact ([0-9a-f]{64})/.exec(JSON.stringify(request.messages))?.[1] ?? 'missing'
        return { toolCalls: [{ name: 'read_artifact', args: { id, startLine: 1001, endLine: 1002 } }] }
      }
      return { text: 'found it' }
    })
    const runtime = new AgentRuntime(new Extensions(), { maxToolOutputBytes: 1_000 })
    await runtime.run({ agent: { name: 'a', model, tools: { dump } }, input: 'x' })
    expect(JSON.stringify(toolResults(model, 2))).toContain('line 1000')
    const without = new AgentRuntime(new Extensions(), {}, { readArtifact: false })
    const plain = mockModel([{ text: 'ok' }])
    await without.run({ agent: { name: 'a', model: plain, tools: { dump } }, input: 'x' })
    expect(plain.calls[0]?.tools?.map((tool) => tool.name)).toEqual(['dump'])
  })
})

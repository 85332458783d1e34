// The cases of the provider conformance suite, as plain async bodies over a CaseContext (server, wire, model):
// `describeLanguageModel` registers them with vitest, `runLanguageModelCase` runs one on its own.
import type { LanguageModel, ModelRequest, StreamPart } from '@spindle/core'
import { expect } from 'vitest'
import type { ScriptedServer } from '../wire/sse-server.js'
import { collectStream, parsedToolCalls, type CollectedStream } from './collect-stream.js'
import type { LanguageModelConformanceCase, LanguageModelConformanceContext } from './describe-language-model.js'
import type { WireAdapter } from './wire-adapter.js'
import { rateLimit, serverError, toolRequest, userRequest } from './case-requests.js'
import { describeError, expectCode, lastUsage, waitFor } from './case-assertions.js'

/** The fake API key every case uses (never to appear in an error message). */
export const conformanceApiKey = 'sk-conformance-SECRET-0123456789abcdef'
const apiKey = conformanceApiKey

export interface CaseDefinition {
  title: string
  body: () => Promise<void>
  timeoutMs?: number
}

export interface CaseContext {
  readonly server: ScriptedServer
  readonly wire: WireAdapter
  model(overrides?: Partial<LanguageModelConformanceContext>): LanguageModel
  run(target: LanguageModel, request?: ModelRequest, signal?: AbortSignal): Promise<CollectedStream>
  expectSuccess(collected: CollectedStream): void
  expectFailure(collected: CollectedStream, code?: string | string[]): Record<string, any>
}

/** Every case of the suite, in order, for a wire (cases a wire cannot express are left out). */
export function languageModelCases(context: CaseContext): Map<LanguageModelConformanceCase, CaseDefinition> {
  const cases = new Map<LanguageModelConformanceCase, CaseDefinition>()
  const { wire, model, run, expectSuccess, expectFailure } = context
  const test = (caseName: LanguageModelConformanceCase, title: string, body: () => Promise<void>, timeoutMs?: number): void => {
    cases.set(caseName, { title, body, ...(timeoutMs !== undefined && { timeoutMs }) })
  }

  test('text', 'streams text deltas in order and finishes with stop', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['Hel', 'lo, ', 'wor', 'ld!'] }))
    const collected = await run(model())
    expectSuccess(collected)
    expect(collected.text).toBe('Hello, world!')
    expect(collected.parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThanOrEqual(2)
    expect(collected.finish?.finishReason).toBe('stop')
    expect(context.server.requests).toHaveLength(1)
    expect(context.server.requests[0]?.method).toBe('POST')
    expect(context.server.requests[0]?.path).toBe(wire.path)
    const sentHeaders = Object.values(context.server.requests[0]?.headers ?? {}).map(String)
    expect(
      sentHeaders.some((value) => value.includes(apiKey)),
      'the API key is sent in a header',
    ).toBe(true)
  })

  test('response-metadata', 'reports the response id and model id', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['ok'], responseId: 'resp_conformance_1', modelId: 'served-model-7' }))
    const collected = await run(model())
    expectSuccess(collected)
    const metadata = collected.parts.filter((part) => part.type === 'response-metadata')
    expect(metadata.length).toBeGreaterThanOrEqual(1)
    expect(metadata.some((part) => part.type === 'response-metadata' && part.id === 'resp_conformance_1')).toBe(true)
    expect(metadata.some((part) => part.type === 'response-metadata' && part.modelId === 'served-model-7')).toBe(true)
  })

  if (wire.features.reasoning) {
    test('reasoning', 'streams reasoning deltas before the text', async () => {
      context.server.enqueue(
        wire.streamTurn({ reasoning: ['Think', 'ing...'], text: ['Answer'], usage: { inputTokens: 5, outputTokens: 9, reasoningTokens: 4 } }),
      )
      const collected = await run(model())
      expectSuccess(collected)
      expect(collected.reasoning).toBe('Thinking...')
      expect(collected.text).toBe('Answer')
      const firstReasoning = collected.parts.findIndex((part) => part.type === 'reasoning-delta')
      const firstText = collected.parts.findIndex((part) => part.type === 'text-delta')
      expect(firstReasoning).toBeGreaterThanOrEqual(0)
      expect(firstReasoning).toBeLessThan(firstText)
    })
  }

  test('request-mapping', 'sends system, user, assistant tool call, tool result, tools and settings', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['done'] }))
    const request: ModelRequest = {
      messages: [
        { role: 'system', content: 'SYSTEM-INSTRUCTIONS-42' },
        { role: 'user', content: 'USER-QUESTION-17' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ASSISTANT-PREAMBLE' },
            { type: 'tool-call', toolCallId: 'call_prior_1', toolName: 'get_weather', args: { city: 'Lyon' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_prior_1', toolName: 'get_weather', result: { forecast: 'SUNNY-RESULT' } }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'WEATHER-TOOL-DESCRIPTION',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        },
      ],
      toolChoice: 'auto',
      maxOutputTokens: 321,
      temperature: 0.25,
    }
    const collected = await run(model(), request)
    expectSuccess(collected)
    const body = context.server.requests[0]?.rawBody ?? ''
    for (const expected of [
      'SYSTEM-INSTRUCTIONS-42',
      'USER-QUESTION-17',
      'ASSISTANT-PREAMBLE',
      'call_prior_1',
      'SUNNY-RESULT',
      'get_weather',
      'WEATHER-TOOL-DESCRIPTION',
      'Lyon',
      '"city"',
      '321',
      '0.25',
    ]) {
      expect(body, `the request body carries ${expected}`).toContain(expected)
    }
    // System, user, assistant and tool content appear in conversation order.
    const order = ['SYSTEM-INSTRUCTIONS-42', 'USER-QUESTION-17', 'ASSISTANT-PREAMBLE', 'SUNNY-RESULT'].map((marker) => body.indexOf(marker))
    expect([...order].sort((a, b) => a - b)).toEqual(order)
  })

  test('structured-output', 'sends the JSON schema and returns JSON text', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['{"answer":', ' 42}'] }))
    const request: ModelRequest = {
      ...userRequest('Answer as JSON'),
      responseFormat: {
        type: 'json',
        name: 'final_answer',
        schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false },
      },
    }
    const collected = await run(model(), request)
    expectSuccess(collected)
    expect(JSON.parse(collected.text)).toEqual({ answer: 42 })
    expect(context.server.requests[0]?.rawBody).toContain('"answer"')
  })

  test('one-tool-call', 'streams one tool call as start, argument deltas, end, then finishes with tool-calls', async () => {
    context.server.enqueue(wire.streamTurn({ toolCalls: [{ id: 'call_one', name: 'get_weather', argumentChunks: ['{"city"', ':"Paris"}'] }] }))
    const collected = await run(model(), toolRequest())
    expectSuccess(collected)
    expect(parsedToolCalls(collected)).toEqual([{ toolCallId: 'call_one', toolName: 'get_weather', args: { city: 'Paris' } }])
    expect(collected.finish?.finishReason).toBe('tool-calls')
    const types = collected.parts.map((part) => part.type)
    expect(types.indexOf('tool-call-start')).toBeLessThan(types.indexOf('tool-call-delta'))
    expect(types.lastIndexOf('tool-call-delta')).toBeLessThan(types.indexOf('tool-call-end'))
  })

  test('parallel-tool-calls', 'streams parallel tool calls, each with its own id and arguments', async () => {
    context.server.enqueue(
      wire.streamTurn({
        text: ['Checking both.'],
        toolCalls: [
          { id: 'call_a', name: 'get_weather', argumentChunks: ['{"city":', '"Paris"}'] },
          { id: 'call_b', name: 'get_time', argumentChunks: ['{"zone":', '"UTC"}'] },
        ],
      }),
    )
    const collected = await run(model(), toolRequest())
    expectSuccess(collected)
    expect(collected.text).toBe('Checking both.')
    expect(parsedToolCalls(collected)).toEqual([
      { toolCallId: 'call_a', toolName: 'get_weather', args: { city: 'Paris' } },
      { toolCallId: 'call_b', toolName: 'get_time', args: { zone: 'UTC' } },
    ])
    expect(collected.finish?.finishReason).toBe('tool-calls')
  })

  test('interleaved-tool-calls', 'keeps interleaved argument deltas of parallel calls apart', async () => {
    context.server.enqueue(
      wire.streamTurn({
        interleaveToolCalls: true,
        toolCalls: [
          { id: 'call_x', name: 'get_weather', argumentChunks: ['{"ci', 'ty":"Ro', 'me"}'] },
          { id: 'call_y', name: 'get_weather', argumentChunks: ['{"ci', 'ty":"Os', 'lo"}'] },
        ],
      }),
    )
    const collected = await run(model(), toolRequest())
    expectSuccess(collected)
    expect(parsedToolCalls(collected).map((call) => [call.toolCallId, call.args])).toEqual([
      ['call_x', { city: 'Rome' }],
      ['call_y', { city: 'Oslo' }],
    ])
  })

  test('argument-deltas', 'forwards argument deltas as they arrive (not one final blob)', async () => {
    const chunks = ['{"q', 'uery":', '"a lo', 'ng sea', 'rch"}']
    context.server.enqueue(wire.streamTurn({ toolCalls: [{ id: 'call_d', name: 'search', argumentChunks: chunks }] }))
    const collected = await run(model(), toolRequest())
    expectSuccess(collected)
    const deltas = collected.parts.filter((part) => part.type === 'tool-call-delta')
    expect(deltas.length).toBeGreaterThanOrEqual(chunks.length - 1)
    expect(parsedToolCalls(collected)[0]?.args).toEqual({ query: 'a long search' })
  })

  test('usage', 'reports input, output, cached and reasoning tokens', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['ok'], usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1024, reasoningTokens: 30 } }))
    const collected = await run(model())
    expectSuccess(collected)
    const usage = lastUsage(collected.parts)
    expect(usage).toMatchObject({ inputTokens: 1200, outputTokens: 80 })
    if (wire.features.cachedInputTokens ?? true) expect(usage?.cachedInputTokens).toBe(1024)
    if (wire.features.reasoningTokens ?? wire.features.reasoning) expect(usage?.reasoningTokens).toBe(30)
  })

  test('finish-reasons', 'maps every finish reason of the protocol', async () => {
    expect(wire.finishReasonCases.length).toBeGreaterThan(0)
    for (const finishCase of wire.finishReasonCases) {
      context.server.reset()
      context.server.enqueue(wire.streamTurn(finishCase.turn))
      const collected = await run(model(), toolRequest())
      if (collected.error !== undefined) throw new Error(`finish case ${finishCase.name}: ${describeError(collected.error)}`)
      expect(collected.finish?.finishReason, `finish case ${finishCase.name}`).toBe(finishCase.expected)
      if (finishCase.raw !== undefined && collected.finish?.rawFinishReason !== undefined) {
        expect(collected.finish.rawFinishReason, `raw reason of ${finishCase.name}`).toBe(finishCase.raw)
      }
    }
  })

  test('rate-limit-retry-after', 'retries a 429 after its Retry-After, then succeeds', async () => {
    context.server.enqueue(wire.httpError(rateLimit({ retryAfterSeconds: 1 })), wire.streamTurn({ text: ['after the wait'] }))
    const started = Date.now()
    const collected = await run(model({ maxRetries: 2 }))
    expectSuccess(collected)
    expect(collected.text).toBe('after the wait')
    expect(context.server.requests).toHaveLength(2)
    expect(context.server.requests[1]!.receivedAt - context.server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(900)
    expect(Date.now() - started).toBeLessThan(4_000)
  })

  test('rate-limit-no-retries', 'surfaces a 429 as a retryable provider error with retryAfterMs', async () => {
    context.server.enqueue(wire.httpError(rateLimit({ retryAfterSeconds: 7 })))
    const error = expectFailure(await run(model({ maxRetries: 0 })), 'provider')
    expect(error.status).toBe(429)
    expect(error.isRetryable).toBe(true)
    expect(error.retryAfterMs).toBe(7_000)
    expect(context.server.requests).toHaveLength(1)
  })

  test('server-error-then-success', 'retries a 500 with backoff, then succeeds', async () => {
    context.server.enqueue(wire.httpError(serverError()), wire.streamTurn({ text: ['recovered'] }))
    const collected = await run(model({ maxRetries: 2 }))
    expectSuccess(collected)
    expect(collected.text).toBe('recovered')
    expect(context.server.requests).toHaveLength(2)
  })

  test('retries-are-bounded', 'gives up after maxRetries and reports the last status', async () => {
    context.server.enqueue(wire.httpError(serverError()), wire.httpError(serverError()), wire.httpError(serverError()), wire.streamTurn({ text: ['never'] }))
    const error = expectFailure(await run(model({ maxRetries: 2 })), 'provider')
    expect(error.status).toBe(500)
    expect(error.isRetryable).toBe(true)
    expect(context.server.requests).toHaveLength(3)
  })

  test('authentication-error', 'fails a 401 at once, without retry, without echoing the key', async () => {
    context.server.enqueue(
      wire.httpError({ kind: 'authentication', status: 401, message: `Incorrect API key provided: ${apiKey}.`, echoedSecret: apiKey }),
      wire.streamTurn({ text: ['never'] }),
    )
    const error = expectFailure(await run(model({ maxRetries: 2 })), 'provider')
    expect(error.status).toBe(401)
    expect(error.isRetryable).toBe(false)
    expect(context.server.requests).toHaveLength(1)
    expect(JSON.stringify(error.details ?? {})).not.toContain(apiKey)
  })

  test('context-overflow', 'maps a context-length error to ContextOverflowError', async () => {
    context.server.enqueue(wire.httpError({ kind: 'context_overflow', status: 400, message: 'The input exceeds the context window of this model.' }))
    const error = expectFailure(await run(model({ maxRetries: 2 })), 'context_overflow')
    expect(error.isRetryable).toBe(false)
    expect(context.server.requests).toHaveLength(1)
  })

  test('in-band-error', 'maps an error event after HTTP 200 to its status, keeps earlier text, never retries after output', async () => {
    context.server.enqueue(wire.inBandError({ text: ['partial ', 'answer'] }, serverError()), wire.streamTurn({ text: ['never'] }))
    const collected = await run(model({ maxRetries: 2 }))
    const error = expectFailure(collected, 'provider')
    expect(error.status).toBe(500)
    expect(collected.text).toBe('partial answer')
    expect(context.server.requests).toHaveLength(1)
  })

  test('truncated-before-finish', 'treats a stream that ends without its terminal event as interrupted', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['half an ans'], truncate: 'before-finish' }), wire.streamTurn({ text: ['never'] }))
    const collected = await run(model({ maxRetries: 2 }))
    expectFailure(collected, 'stream_interrupted')
    expect((collected.error as { isRetryable?: boolean }).isRetryable).toBe(true)
    expect(collected.text).toBe('half an ans')
    expect(context.server.requests).toHaveLength(1)
  })

  test('truncated-mid-tool-arguments', 'never completes a tool call whose arguments were cut off', async () => {
    context.server.enqueue(
      wire.streamTurn({
        toolCalls: [{ id: 'call_cut', name: 'delete_file', argumentChunks: ['{"path":"/tmp/', 'important"}'] }],
        truncate: 'mid-tool-arguments',
      }),
    )
    const collected = await run(model(), toolRequest())
    expectFailure(collected, 'stream_interrupted')
    expect(collected.parts.some((part) => part.type === 'tool-call-end')).toBe(false)
    expect(collected.toolCalls).toEqual([])
  })

  test('connection-reset', 'treats a connection cut mid-stream as a retryable failure, not an answer', async () => {
    context.server.enqueue({ ...wire.streamTurn({ text: ['cut ', 'here'], truncate: 'before-finish' }), ending: 'destroy' })
    const collected = await run(model())
    const error = expectFailure(collected, ['stream_interrupted', 'provider'])
    expect(error.isRetryable).toBe(true)
  })

  test('abort-mid-stream', 'stops on abort mid-stream with an AbortedError and closes the connection', async () => {
    context.server.enqueue({ ...wire.streamTurn({ text: ['first ', 'second'], truncate: 'before-finish' }), ending: 'hang' })
    const controller = new AbortController()
    const parts: StreamPart[] = []
    let caught: unknown
    try {
      for await (const part of model().stream(userRequest('Hello'), { signal: controller.signal })) {
        parts.push(part)
        if (part.type === 'text-delta') controller.abort()
      }
    } catch (error) {
      caught = error
    }
    expectCode(caught, 'aborted')
    expect(parts.some((part) => part.type === 'finish')).toBe(false)
    await waitFor(() => context.server.requests[0]?.clientClosed === true)
  })

  test('abort-before-start', 'fails with AbortedError when the signal is already aborted', async () => {
    context.server.enqueue(wire.streamTurn({ text: ['never'] }))
    const controller = new AbortController()
    controller.abort()
    const collected = await collectStream(model().stream(userRequest('Hello'), { signal: controller.signal }))
    expectCode(collected.error, 'aborted')
    expect(collected.finish).toBeUndefined()
  })

  test('abort-during-backoff', 'an abort during the retry wait ends at once', async () => {
    context.server.enqueue(wire.httpError(rateLimit({ retryAfterSeconds: 30 })), wire.streamTurn({ text: ['never'] }))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    const collected = await collectStream(model({ maxRetries: 2 }).stream(userRequest('Hello'), { signal: controller.signal }))
    expectCode(collected.error, 'aborted')
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(context.server.requests).toHaveLength(1)
  })

  test('slow-first-byte', 'waits for a slow first byte within the first-chunk timeout', async () => {
    context.server.enqueue({ ...wire.streamTurn({ text: ['slow but fine'] }), firstByteDelayMs: 250 })
    const collected = await run(model({ firstChunkTimeoutMs: 3_000 }))
    expectSuccess(collected)
    expect(collected.text).toBe('slow but fine')
  })

  test('first-chunk-timeout', 'fails with a retryable error when the first chunk is too late, and retries', async () => {
    context.server.enqueue({ ...wire.streamTurn({ text: ['too late'] }), firstByteDelayMs: 2_000 }, wire.streamTurn({ text: ['in time'] }))
    const started = Date.now()
    const failed = await run(model({ firstChunkTimeoutMs: 150, maxRetries: 0 }))
    const error = expectFailure(failed, ['timeout', 'provider', 'stream_interrupted'])
    expect(error.isRetryable).toBe(true)
    expect(Date.now() - started).toBeLessThan(1_500)
    context.server.reset()
    context.server.enqueue({ ...wire.streamTurn({ text: ['too late'] }), firstByteDelayMs: 2_000 }, wire.streamTurn({ text: ['in time'] }))
    const retried = await run(model({ firstChunkTimeoutMs: 150, maxRetries: 1 }))
    expectSuccess(retried)
    expect(retried.text).toBe('in time')
  })

  test('idle-timeout', 'fails when the stream stalls between chunks, without a finish', async () => {
    context.server.enqueue({ ...wire.streamTurn({ text: ['start ', 'then stall'], truncate: 'before-finish' }), ending: 'hang' })
    const started = Date.now()
    const collected = await run(model({ idleTimeoutMs: 200 }))
    const error = expectFailure(collected, ['timeout', 'provider', 'stream_interrupted'])
    expect(error.isRetryable).toBe(true)
    expect(collected.text).toBe('start then stall')
    expect(Date.now() - started).toBeLessThan(2_000)
  })
  return cases
}

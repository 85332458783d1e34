// The status rule (one per finish reason, in every store) and the RunError a run records, through AgentRuntime.
import { describe, expect, it } from 'vitest'
import {
  AgentRuntime,
  type AgentEvent,
  ContextOverflowError,
  Extensions,
  type FinishReason,
  mockModel,
  ProviderError,
  runErrorOf,
  runStatusOf,
  StreamInterruptedError,
  TimeoutError,
} from '../index.js'

describe('run status rule', () => {
  it('maps every finish reason to one status', () => {
    const table: Record<FinishReason, string> = {
      stop: 'completed',
      length: 'completed',
      content_filter: 'completed',
      max_steps: 'completed',
      max_tool_calls: 'completed',
      budget: 'completed',
      timeout: 'failed',
      error: 'failed',
      policy: 'failed',
      cancelled: 'cancelled',
      awaiting_approval: 'suspended',
    }
    for (const [reason, status] of Object.entries(table)) expect([reason, runStatusOf(reason as FinishReason)]).toEqual([reason, status])
  })

  it('a run ended by runTimeoutMs is failed, listed with the failed runs, with error code timeout on output, record and event', async () => {
    const runtime = new AgentRuntime(new Extensions(), { runTimeoutMs: 50 })
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ text: 'late', delayMs: 5_000 }]) }, input: 'hi' })
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    expect(output.finishReason).toBe('timeout')
    expect(output.error).toMatchObject({ code: 'timeout', retryable: false })
    const record = await runtime.runs.getRun(output.runId)
    expect(record).toMatchObject({ status: 'failed', finishReason: 'timeout', error: output.error })
    expect((await runtime.runs.listRuns({ status: 'failed' })).map((run) => run.id)).toEqual([output.runId])
    const finished = events.find((event) => event.type === 'run.finished')
    expect(finished).toMatchObject({ finishReason: 'timeout', error: output.error })
  })
})

describe('RunError', () => {
  it('gives each provider failure its own code, with status, retryable and provider', () => {
    const provider = 'openai'
    expect(runErrorOf(new ProviderError('no', { status: 401, provider }))).toEqual({
      code: 'provider_auth',
      message: 'no',
      status: 401,
      retryable: false,
      provider,
    })
    expect(runErrorOf(new ProviderError('slow', { status: 429, provider }))).toMatchObject({ code: 'provider_rate_limit', retryable: true })
    expect(runErrorOf(new ProviderError('busy', { status: 529 }))).toMatchObject({ code: 'provider_overloaded', retryable: true })
    expect(runErrorOf(new ProviderError('busy', { status: 500, details: { type: 'overloaded_error' } }))).toMatchObject({ code: 'provider_overloaded' })
    expect(runErrorOf(new ProviderError('down', { status: 502 }))).toMatchObject({ code: 'provider_server', status: 502 })
    expect(runErrorOf(new ProviderError('bad', { status: 404 }))).toMatchObject({ code: 'provider_bad_request', retryable: false })
    expect(runErrorOf(new ProviderError('conn', { isRetryable: true, provider }))).toMatchObject({ code: 'provider_unreachable', retryable: true })
    expect(runErrorOf(new ContextOverflowError('too long', { status: 400 }))).toMatchObject({ code: 'context_length', status: 400 })
    expect(runErrorOf(new StreamInterruptedError('cut'))).toMatchObject({ code: 'stream_interrupted', retryable: true })
    expect(runErrorOf(new TimeoutError('late'))).toMatchObject({ code: 'timeout' })
    expect(runErrorOf(new Error('plain'))).toEqual({ code: 'error', message: 'plain' })
  })

  it('a failed run records the error fields on its output, record and run.failed event', async () => {
    const runtime = new AgentRuntime()
    const error = new ProviderError('[spindle/x] HTTP 429', { status: 429, provider: 'x', attempts: 3 })
    const stream = runtime.stream({ agent: { name: 'a', model: mockModel([{ error }]) }, input: 'hi' })
    const events: AgentEvent[] = []
    for await (const event of stream) events.push(event)
    const output = await stream.result
    expect(output.error).toEqual({ code: 'provider_rate_limit', message: '[spindle/x] HTTP 429', status: 429, retryable: true, provider: 'x' })
    expect((await runtime.runs.getRun(output.runId))?.error).toEqual(output.error)
    expect(events.find((event) => event.type === 'run.failed')).toMatchObject({ error: output.error })
  })
})

import { openaiResponsesEvents } from '@spindle/testing'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import { ResponsesStreamMapper } from './responses-stream-mapper.js'
import { decodeReasoningSignature } from './reasoning-signature.js'

const errors = { provider: 'openai', secrets: [] }
const run = (events: Array<{ data: unknown }>) => {
  const mapper = new ResponsesStreamMapper(errors)
  const parts = events.flatMap((event) => mapper.map(event.data as ResponseStreamEvent))
  return [...parts, ...mapper.end()]
}

describe('ResponsesStreamMapper', () => {
  it('surfaces the encrypted reasoning item as a signature that can be sent back', () => {
    const parts = run(openaiResponsesEvents({ reasoning: ['a', 'b'], text: ['c'] }))
    const signed = parts.find((part) => part.type === 'reasoning-delta' && part.signature)
    expect(signed?.type === 'reasoning-delta' && decodeReasoningSignature(signed.signature)).toEqual({
      id: 'rs_0001',
      encrypted_content: 'gAAAA-opaque-reasoning',
    })
  })

  it('separates reasoning summary parts with a blank line', () => {
    const mapper = new ResponsesStreamMapper(errors)
    const delta = (summary_index: number, text: string) =>
      mapper.map({
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs',
        output_index: 0,
        summary_index,
        delta: text,
        sequence_number: 0,
      } as ResponseStreamEvent)
    expect([...delta(0, 'one'), ...delta(1, 'two')].map((part) => part.type === 'reasoning-delta' && part.delta)).toEqual(['one', '\n\ntwo'])
  })

  it('sends arguments that arrive only in the done events as one delta', () => {
    const events = openaiResponsesEvents({ toolCalls: [{ id: 'call_1', name: 'f', argumentChunks: ['{"a":1}'] }] }).filter(
      (event) => event.event !== 'response.function_call_arguments.delta',
    )
    const parts = run(events)
    expect(parts.filter((part) => part.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-start', id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', id: 'call_1', argsDelta: '{"a":1}' },
      { type: 'tool-call-end', id: 'call_1' },
    ])
  })

  it('reports a refusal as content-filter', () => {
    const events = openaiResponsesEvents({ text: ['x'] }).map((event) =>
      event.event === 'response.output_text.delta'
        ? { event: 'response.refusal.delta', data: { ...(event.data as object), type: 'response.refusal.delta', delta: 'I cannot help.' } }
        : event,
    )
    const parts = run(events)
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'content-filter' })
    expect(parts.some((part) => part.type === 'text-delta' && part.delta === 'I cannot help.')).toBe(true)
  })

  it('leaves a call cut by max_output_tokens open at a length finish', () => {
    const events = openaiResponsesEvents({ toolCalls: [{ id: 'call_1', name: 'f', argumentChunks: ['{"a":'] }], truncate: 'mid-tool-arguments' })
    events.push({
      event: 'response.incomplete',
      data: {
        type: 'response.incomplete',
        sequence_number: 50,
        response: { id: 'r', model: 'm', status: 'incomplete', output: [], incomplete_details: { reason: 'max_output_tokens' }, usage: null },
      },
    })
    const parts = run(events)
    expect(parts.some((part) => part.type === 'tool-call-end')).toBe(false)
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length', rawFinishReason: 'max_output_tokens' })
  })
})

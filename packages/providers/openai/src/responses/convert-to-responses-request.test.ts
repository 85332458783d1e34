import type { JsonValue, ModelRequest } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { convertToResponsesRequest } from './convert-to-responses-request.js'
import { decodeReasoningSignature, encodeReasoningSignature } from './reasoning-signature.js'

const closedSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }

describe('convertToResponsesRequest', () => {
  it('maps a full conversation to input items, statelessly', () => {
    const request: ModelRequest = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', name: 'a.pdf' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking', signature: encodeReasoningSignature('rs_1', 'ENC') },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', args: { q: 'x' } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup', result: { found: true } },
            { type: 'tool-result', toolCallId: 'call_2', toolName: 'lookup', result: 'boom', isError: true },
          ],
        },
      ],
    }
    const params = convertToResponsesRequest(request, { provider: 'openai', modelId: 'gpt-4.1' })
    expect(params).toMatchObject({ model: 'gpt-4.1', stream: true, store: false })
    expect(params.input).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What is this?' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
        ],
      },
      { type: 'reasoning', id: 'rs_1', encrypted_content: 'ENC', summary: [{ type: 'summary_text', text: 'thinking' }] },
      { role: 'assistant', content: 'Let me check.' },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"found":true}' },
      { type: 'function_call_output', call_id: 'call_2', output: 'Error: boom' },
    ])
  })

  it('uses the developer role, reasoning summaries and encrypted reasoning for reasoning models, without temperature', () => {
    const params = convertToResponsesRequest(
      {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'U' },
        ],
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 99,
      },
      { provider: 'openai', modelId: 'gpt-5.4' },
    )
    expect(params.input?.[0]).toEqual({ role: 'developer', content: 'S' })
    expect(params.temperature).toBeUndefined()
    expect(params.top_p).toBeUndefined()
    expect(params.max_output_tokens).toBe(99)
    expect(params.reasoning).toEqual({ summary: 'auto' })
    expect(params.include).toEqual(['reasoning.encrypted_content'])
  })

  it('maps tools (strict when the schema allows it), tool choice and structured output', () => {
    const params = convertToResponsesRequest(
      {
        messages: [{ role: 'user', content: 'U' }],
        tools: [
          { name: 'strict_tool', description: 'd', inputSchema: closedSchema },
          {
            name: 'loose_tool',
            description: 'd',
            inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] },
          },
        ],
        toolChoice: { type: 'tool', name: 'strict_tool' },
        responseFormat: { type: 'json', name: 'answer', schema: closedSchema },
        temperature: 0,
      },
      { provider: 'openai', modelId: 'gpt-4.1' },
    )
    expect(params.tools).toEqual([
      { type: 'function', name: 'strict_tool', description: 'd', parameters: closedSchema, strict: true },
      expect.objectContaining({ name: 'loose_tool', strict: false }),
    ])
    expect(params.tool_choice).toEqual({ type: 'function', name: 'strict_tool' })
    expect(params.text).toEqual({ format: { type: 'json_schema', name: 'answer', schema: closedSchema, strict: true } })
    expect(params.temperature).toBe(0)
  })

  it('passes provider options through last, keyed by provider name', () => {
    const params = convertToResponsesRequest(
      { messages: [{ role: 'user', content: 'U' }], providerOptions: { openai: { store: true, reasoning: { effort: 'high' } } } },
      { provider: 'openai', modelId: 'gpt-5.4' },
    )
    expect(params.store).toBe(true)
    expect(params.reasoning).toEqual({ summary: 'auto', effort: 'high' })
  })

  it('merges nested provider options into the defaults: reasoning effort keeps summaries, an added include keeps encrypted reasoning', () => {
    const convert = (openai: Record<string, JsonValue>) =>
      convertToResponsesRequest({ messages: [{ role: 'user', content: 'U' }], providerOptions: { openai } }, { provider: 'openai', modelId: 'o3' })
    // The README's example: summaries (reasoning-delta parts) stay on.
    expect(convert({ reasoning: { effort: 'high' } }).reasoning).toEqual({ summary: 'auto', effort: 'high' })
    // The user's value wins per key.
    expect(convert({ reasoning: { summary: 'detailed' } }).reasoning).toEqual({ summary: 'detailed' })
    // Arrays are a union: the entry stateless reasoning needs stays, duplicates are dropped.
    expect(convert({ include: ['web_search_call.action.sources', 'reasoning.encrypted_content'] }).include).toEqual([
      'reasoning.encrypted_content',
      'web_search_call.action.sources',
    ])
    // Deeper objects merge too; options absent from the defaults are set as given.
    const text = convertToResponsesRequest(
      {
        messages: [{ role: 'user', content: 'U' }],
        responseFormat: { type: 'json', name: 'answer', schema: closedSchema },
        providerOptions: { openai: { text: { verbosity: 'low' }, service_tier: 'flex' } },
      },
      { provider: 'openai', modelId: 'gpt-4.1' },
    )
    expect(text.text).toEqual({ format: { type: 'json_schema', name: 'answer', schema: closedSchema, strict: true }, verbosity: 'low' })
    expect(text.service_tier).toBe('flex')
    expect(() => convert('high' as unknown as Record<string, JsonValue>)).toThrow(/providerOptions\.openai must be an object/)
  })

  it('drops reasoning it cannot send back and refuses unresolved artifacts', () => {
    const params = convertToResponsesRequest(
      {
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'from another provider', signature: 'anthropic-sig' },
              { type: 'text', text: 'hi' },
            ],
          },
        ],
      },
      { provider: 'openai', modelId: 'gpt-4.1' },
    )
    expect(params.input).toEqual([{ role: 'assistant', content: 'hi' }])
    expect(() =>
      convertToResponsesRequest(
        { messages: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: 'artifact:abc' }] }] },
        { provider: 'openai', modelId: 'gpt-4.1' },
      ),
    ).toThrow(/artifact reference/)
  })

  it('round-trips reasoning signatures', () => {
    expect(decodeReasoningSignature(encodeReasoningSignature('rs_9', 'E=='))).toEqual({ id: 'rs_9', encrypted_content: 'E==' })
    expect(decodeReasoningSignature('other')).toBeUndefined()
    expect(decodeReasoningSignature(undefined)).toBeUndefined()
  })
})

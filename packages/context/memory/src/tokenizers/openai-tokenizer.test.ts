import { AgentRuntime, Extensions, mockModel } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { encodingForModel, openaiTokenizer } from '@spindle/context-memory/tokenizers'

describe('openaiTokenizer', () => {
  it('counts exact o200k and cl100k tokens', async () => {
    const o200k = await openaiTokenizer({ model: 'gpt-4o-mini' })
    expect(o200k.name).toBe('openai-o200k_base')
    expect(o200k.count('hello world')).toBe(2)
    expect(o200k.count('')).toBe(0)
    const cl100k = await openaiTokenizer({ encoding: 'cl100k_base' })
    expect(cl100k.count('hello world')).toBe(2)
    // The two encodings differ on non-English text.
    const text = 'Привет, как дела? Сегодня хорошая погода.'
    expect(o200k.count(text)).toBeLessThan(cl100k.count(text))
  })

  it('counts special-token strings in user text as plain text instead of throwing', async () => {
    const tokenizer = await openaiTokenizer()
    expect(tokenizer.count('before <|endoftext|> after')).toBeGreaterThan(3)
  })

  it('picks the encoding from the model id', () => {
    expect(encodingForModel('gpt-4o')).toBe('o200k_base')
    expect(encodingForModel('openai:gpt-5-mini')).toBe('o200k_base')
    expect(encodingForModel('o3-mini')).toBe('o200k_base')
    expect(encodingForModel('gpt-4-turbo')).toBe('cl100k_base')
    expect(encodingForModel('gpt-3.5-turbo')).toBe('cl100k_base')
  })

  it('plugs into AgentRuntime as the context tokenizer', async () => {
    const tokenizer = await openaiTokenizer({ model: 'gpt-4o' })
    const runtime = new AgentRuntime(new Extensions(), {}, { tokenizer })
    expect(runtime.context.tokenizer).toBe(tokenizer)
    const model = mockModel([{ text: 'ok' }])
    const output = await runtime.run({ agent: { name: 'a', model }, input: 'hello world' })
    expect(output.text).toBe('ok')
  })
})

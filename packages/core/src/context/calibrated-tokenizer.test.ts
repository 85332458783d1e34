import { describe, expect, it } from 'vitest'
import { calibratedTokenizer, mockModel, tokenizerForModel, tokenizerProfiles } from '../index.js'

const prose = 'The quick brown fox jumps over the lazy dog while the committee debates the budget for next year. '

describe('calibratedTokenizer', () => {
  it('uses the family ratio and errs high by the margin', () => {
    const tokenizer = calibratedTokenizer({ charsPerToken: 4, margin: 1.25 })
    expect(tokenizer.count('x'.repeat(400))).toBe(125)
    expect(tokenizer.count('漢字'.repeat(10))).toBe(Math.ceil(20 * 1.1 * 1.25))
  })

  it('samples with true counts fix the scale up front', () => {
    // A model whose tokens are twice as dense as the raw ratio says.
    const text = prose.repeat(10)
    const tokenizer = calibratedTokenizer({ charsPerToken: 4, margin: 1, samples: [{ text, tokens: Math.round(text.length / 2) }] })
    expect(tokenizer.scale).toBeCloseTo(2, 2)
    expect(tokenizer.count(text)).toBeGreaterThanOrEqual(Math.round(text.length / 2))
  })

  it('observe() converges toward the reported input tokens, clamped against outliers', () => {
    const tokenizer = calibratedTokenizer({ charsPerToken: 4, margin: 1.05 })
    const text = prose.repeat(40)
    const truth = Math.round(text.length / 3)
    for (let i = 0; i < 40; i++) tokenizer.observe(tokenizer.count(text), truth)
    const estimate = tokenizer.count(text)
    expect(estimate).toBeGreaterThanOrEqual(truth)
    expect(estimate).toBeLessThan(truth * 1.1)
    const before = tokenizer.scale
    tokenizer.observe(100, 1_000_000)
    expect(tokenizer.scale).toBeLessThanOrEqual(before * 1.2 + 1e-9)
    tokenizer.observe(0, 10)
    tokenizer.observe(10, Number.NaN)
    expect(Number.isFinite(tokenizer.scale)).toBe(true)
  })

  it('tokenizerForModel picks the provider family profile', () => {
    const anthropic = tokenizerForModel(mockModel([], { provider: 'anthropic' }), { margin: 1 })
    expect(anthropic.name).toBe('calibrated-anthropic')
    expect(anthropic.count('a'.repeat(340))).toBe(Math.ceil(340 / tokenizerProfiles.anthropic!))
    const unknown = tokenizerForModel(mockModel([], { provider: 'acme' }), { margin: 1 })
    expect(unknown.count('a'.repeat(360))).toBe(100)
  })
})

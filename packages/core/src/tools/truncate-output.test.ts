import { describe, expect, it } from 'vitest'
import { truncateOutput } from './truncate-output.js'

const bytes = (text: string) => Buffer.byteLength(text)

function split(value: string): { head: string; tail: string; cut: number; total: number; marker: string } {
  const match = /\n…\[truncated (\d+) of (\d+) bytes\.[^\]]*\]…\n/.exec(value)
  if (!match) throw new Error(`no truncation marker in ${value.slice(0, 200)}`)
  return {
    head: value.slice(0, match.index),
    tail: value.slice(match.index + match[0].length),
    cut: Number(match[1]),
    total: Number(match[2]),
    marker: match[0],
  }
}

describe('truncateOutput', () => {
  it('keeps a result under the cap whole, and reports its size and serialization', () => {
    const result = { rows: [1, 2, 3] }
    expect(truncateOutput(result, 1000)).toEqual({ value: result, truncated: false, bytes: 16, serialized: '{"rows":[1,2,3]}' })
    expect(truncateOutput('exactly ten', 11)).toMatchObject({ value: 'exactly ten', truncated: false, bytes: 11 })
  })

  it('keeps both ends of an oversized string and says how many bytes were cut', () => {
    const text = `BEGIN-${'m'.repeat(10_000)}-END`
    const out = truncateOutput(text, 1_000)
    expect(out.truncated).toBe(true)
    expect(out.bytes).toBe(bytes(text))
    expect(out.serialized).toBe(text)
    const value = out.value as string
    const { head, tail, cut, total } = split(value)
    expect(head.startsWith('BEGIN-')).toBe(true)
    expect(tail.endsWith('-END')).toBe(true)
    expect(text.startsWith(head)).toBe(true)
    expect(text.endsWith(tail)).toBe(true)
    expect(total).toBe(bytes(text))
    expect(bytes(head) + bytes(tail) + cut).toBe(total)
    expect(bytes(head)).toBe(bytes(tail))
    expect(bytes(value)).toBeLessThanOrEqual(1_000)
  })

  it('serializes a JSON result first and truncates the JSON text', () => {
    const result = { items: Array.from({ length: 500 }, (_, index) => ({ index, name: `item-${index}` })) }
    const out = truncateOutput(result, 2_000)
    expect(out.truncated).toBe(true)
    expect(out.serialized).toBe(JSON.stringify(result))
    const { head, tail } = split(out.value as string)
    expect(head.startsWith('{"items":[{"index":0,')).toBe(true)
    expect(tail.endsWith('"name":"item-499"}]}')).toBe(true)
  })

  it('names the artifact holding the whole output when one is given', () => {
    const out = truncateOutput('x'.repeat(5_000), 500, 'art_123')
    expect(split(out.value as string).marker).toContain('The whole output is artifact art_123')
    expect(split(truncateOutput('x'.repeat(5_000), 500).value as string).marker).not.toContain('artifact')
  })

  it('never splits a multi-byte UTF-8 character into replacement characters', () => {
    for (const unit of ['é', '€', '日本', '🙂', 'a€🙂']) {
      const text = unit.repeat(3_000)
      for (const max of [301, 302, 303, 500, 777]) {
        const value = truncateOutput(text, max).value as string
        expect(value).not.toContain('\uFFFD')
        const { head, tail, cut, total } = split(value)
        expect(text.startsWith(head)).toBe(true)
        expect(text.endsWith(tail)).toBe(true)
        expect(bytes(head) + bytes(tail) + cut).toBe(total)
        // No lone surrogate halves either.
        expect(Buffer.from(head, 'utf8').toString('utf8')).toBe(head)
        expect(Buffer.from(tail, 'utf8').toString('utf8')).toBe(tail)
      }
    }
  })

  it('still keeps a byte at each end under a tiny cap', () => {
    const out = truncateOutput('abcdefghijklmnopqrstuvwxyz', 4)
    const { head, tail } = split(out.value as string)
    expect(head).toBe('a')
    expect(tail).toBe('z')
  })
})

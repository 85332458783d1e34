// cloneValue: the deep copy the memory stores make of every value going in and out.
import { describe, expect, it } from 'vitest'
import { cloneValue } from './clone-value.js'

describe('cloneValue', () => {
  it('copies objects and arrays at every depth: changing the copy never reaches the source', () => {
    const source = { type: 'tool.result', step: 1, result: { rows: [{ id: 1, tags: ['a'] }], total: 1 }, note: null, flag: false }
    const copy = cloneValue(source)
    expect(copy).toEqual(source)
    expect(copy).not.toBe(source)
    expect(copy.result).not.toBe(source.result)
    expect(copy.result.rows[0]).not.toBe(source.result.rows[0])
    copy.result.rows[0]!.tags.push('b')
    copy.result.total = 2
    ;(copy as { step: number }).step = 9
    expect(source).toEqual({ type: 'tool.result', step: 1, result: { rows: [{ id: 1, tags: ['a'] }], total: 1 }, note: null, flag: false })
  })

  it('returns primitives as they are, copies byte arrays, and gives a null-prototype object a plain copy', () => {
    for (const value of [0, -1.5, 'text', true, null, undefined]) expect(cloneValue(value)).toBe(value)
    const bytes = new Uint8Array([1, 2, 3])
    const copiedBytes = cloneValue(bytes)
    copiedBytes[0] = 9
    expect([...bytes]).toEqual([1, 2, 3])
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: 1 } })
    const copy = cloneValue(bare)
    expect(copy).toEqual({ a: { b: 1 } })
    expect(copy.a).not.toBe(bare.a)
    const date = new Date(5)
    expect(cloneValue({ at: date }).at).toEqual(date)
    expect(cloneValue({ at: date }).at).not.toBe(date)
  })
})

import { describe, expect, it } from 'vitest'
import { ToolExecutionError } from '../errors/errors.js'
import { toJsonValue } from './to-json-value.js'

describe('toJsonValue', () => {
  it('undefined becomes null; JSON primitives pass through', () => {
    expect(toJsonValue(undefined)).toBeNull()
    expect(toJsonValue(null)).toBeNull()
    expect(toJsonValue('text')).toBe('text')
    expect(toJsonValue(false)).toBe(false)
    expect(toJsonValue(42.5)).toBe(42.5)
  })

  it('non-finite numbers become strings, at the top and nested', () => {
    expect(toJsonValue(Number.NaN)).toBe('NaN')
    expect(toJsonValue(Number.POSITIVE_INFINITY)).toBe('Infinity')
    expect(toJsonValue(Number.NEGATIVE_INFINITY)).toBe('-Infinity')
    expect(toJsonValue({ score: Number.NaN, list: [Number.POSITIVE_INFINITY, 1] })).toEqual({ score: 'NaN', list: ['Infinity', 1] })
  })

  it('BigInt becomes its decimal string, at the top and nested', () => {
    expect(toJsonValue(12345678901234567890n)).toBe('12345678901234567890')
    expect(toJsonValue({ id: 7n, ids: [1n, 2n] })).toEqual({ id: '7', ids: ['1', '2'] })
  })

  it('an Error becomes its name and message, at the top and nested', () => {
    const error = new TypeError('bad input')
    expect(toJsonValue(error)).toEqual({ name: 'TypeError', message: 'bad input' })
    expect(toJsonValue({ ok: false, error })).toEqual({ ok: false, error: { name: 'TypeError', message: 'bad input' } })
  })

  it('a SpindleError keeps its code through its own toJSON', () => {
    expect(toJsonValue(new ToolExecutionError('failed'))).toMatchObject({ name: 'ToolExecutionError', code: 'tool', message: 'failed' })
  })

  it('binary data is described by its size, including Buffers', () => {
    expect(toJsonValue(new Uint8Array(12))).toBe('<12 bytes>')
    expect(toJsonValue(Buffer.from('hello'))).toBe('<5 bytes>')
    expect(toJsonValue({ file: Buffer.alloc(1024), name: 'a.bin' })).toEqual({ file: '<1024 bytes>', name: 'a.bin' })
  })

  it('drops undefined properties and functions like JSON does, and uses toJSON (Dates)', () => {
    const date = new Date('2024-01-02T03:04:05.000Z')
    expect(toJsonValue({ a: undefined, b: 1, f: () => 1, at: date })).toEqual({ b: 1, at: '2024-01-02T03:04:05.000Z' })
    expect(toJsonValue([undefined, 1])).toEqual([null, 1])
  })

  it('returns a plain JSON copy, not the original object', () => {
    const original = { nested: { list: [1, 2] } }
    const converted = toJsonValue(original)
    expect(converted).toEqual(original)
    expect(converted).not.toBe(original)
  })

  it('a cyclic structure becomes a string instead of throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const converted = toJsonValue(cyclic)
    expect(typeof converted).toBe('string')
  })

  it('a value JSON cannot serialize at all (a function, a symbol) becomes a string', () => {
    expect(typeof toJsonValue(() => 1)).toBe('string')
    expect(toJsonValue(Symbol('s'))).toBe('Symbol(s)')
  })
})

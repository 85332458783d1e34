import { describe, expect, it } from 'vitest'
import { wellFormed } from './well-formed.js'

describe('wellFormed', () => {
  it('returns the very value when every string is well formed (no copy)', () => {
    const params = { model: 'm', input: [{ role: 'user', content: 'fine 😀' }], tools: [{ name: 't', parameters: { type: 'object' } }] }
    expect(wellFormed(params)).toBe(params)
  })

  it('replaces lone surrogates in values and keys with U+FFFD, copying only what changed and keeping key order', () => {
    const untouched = { a: 1 }
    const params = { first: untouched, ['key \ud800']: 'v', list: ['ok', '\udc00x'], last: 'z' }
    const fixed = wellFormed(params)
    expect(fixed).toEqual({ first: { a: 1 }, ['key \ufffd']: 'v', list: ['ok', '\ufffdx'], last: 'z' })
    expect(Object.keys(fixed)).toEqual(['first', 'key \ufffd', 'list', 'last'])
    expect(fixed.first).toBe(untouched)
    expect(params.list).toEqual(['ok', '\udc00x'])
  })

  it('keeps an own __proto__ key a key', () => {
    const parsed = JSON.parse('{"__proto__": "\\ud800", "x": 1}') as Record<string, unknown>
    const fixed = wellFormed(parsed)
    expect(Object.getPrototypeOf(fixed)).toBe(Object.prototype)
    expect(JSON.stringify(fixed)).toBe('{"__proto__":"\ufffd","x":1}')
  })
})

import { describe, expect, it } from 'vitest'
import { satisfiesCaret } from './caret-range.js'

describe('satisfiesCaret', () => {
  it('follows npm: ^0.0.z pins the patch, ^0.y.z the minor, ^x.y.z the major', () => {
    expect(satisfiesCaret('0.1.0', '^0.0.0')).toBe(false)
    expect(satisfiesCaret('0.0.0', '^0.0.0')).toBe(true)
    expect(satisfiesCaret('0.1.3', '^0.1.0')).toBe(true)
    expect(satisfiesCaret('0.2.0', '^0.1.0')).toBe(false)
    expect(satisfiesCaret('0.1.0', '^0.1.2')).toBe(false)
    expect(satisfiesCaret('4.6.7', '^4.1.0')).toBe(true)
    expect(satisfiesCaret('5.0.0', '^4.1.0')).toBe(false)
    expect(satisfiesCaret('0.1.0', 'workspace:^')).toBe(false)
    expect(satisfiesCaret('0.2.1', '^0.1.0 || ^0.2.0')).toBe(true)
    expect(satisfiesCaret('0.3.0', '^0.1.0 || ^0.2.0')).toBe(false)
  })
})

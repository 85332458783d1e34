// The demo calculator: exact whole numbers however large, fractions without float noise, clear errors otherwise.
import { describe, expect, it } from 'vitest'
import { evaluateExpression } from './calculator.js'

describe('evaluateExpression', () => {
  it('keeps large finite results (rounding used to overflow them to Infinity)', () => {
    expect(evaluateExpression('2^1000')).toBe(2 ** 1000)
    expect(evaluateExpression('10^297')).toBe(1e297)
    expect(evaluateExpression('-(2^1023) * 1.5')).toBe(-(2 ** 1023) * 1.5)
    expect(evaluateExpression('2^1023 / 3')).toBe(2 ** 1023 / 3)
  })

  it('drops float noise from fractions', () => {
    expect(evaluateExpression('0.1 + 0.2')).toBe(0.3)
    expect(evaluateExpression('2.675 * 100')).toBe(267.5)
    expect(evaluateExpression('1 / 3')).toBe(0.333333333333333)
    expect(evaluateExpression('12 * (3 + 4)')).toBe(84)
    expect(evaluateExpression('7 % 3 - 0.5')).toBe(0.5)
  })

  it('refuses results that are not finite numbers', () => {
    expect(() => evaluateExpression('1 / 0')).toThrow('not a finite number')
    expect(() => evaluateExpression('10^309')).toThrow('beyond ±1.8e308')
    expect(() => evaluateExpression('0 / 0')).toThrow('not a number')
  })
})

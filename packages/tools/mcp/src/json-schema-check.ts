// A small, safe JSON Schema check for the arguments a model sends to an MCP tool. It covers the
// keywords tool schemas use (type, properties, required, enum, items, bounds, combinators) and
// ignores the rest; no code generation and no regex from the (untrusted) server's schema.
import type { JsonSchema } from '@spindle/core'

const maxDepth = 32
const maxErrors = 10

/** Returns human-readable problems, empty when `value` fits `schema`. */
export function checkJsonSchema(schema: unknown, value: unknown): string[] {
  const errors: string[] = []
  check(schema, value, '', errors, 0)
  return errors.slice(0, maxErrors)
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value)
  return actual === type || (type === 'number' && actual === 'integer')
}

function check(schema: unknown, value: unknown, path: string, errors: string[], depth: number): void {
  if (errors.length >= maxErrors || depth > maxDepth) return
  if (schema === false) {
    errors.push(`${path || 'value'} is not allowed`)
    return
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return
  const s = schema as JsonSchema
  const at = path || 'the arguments'

  if (s.type !== undefined) {
    const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((type): type is string => typeof type === 'string')
    if (s.nullable === true) types.push('null')
    if (types.length > 0 && !types.some((type) => matchesType(value, type))) {
      errors.push(`${at} must be ${types.join(' or ')}, got ${typeOf(value)}`)
      return
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((option) => deepEqual(option, value))) {
    errors.push(`${at} must be one of ${JSON.stringify(s.enum).slice(0, 200)}`)
  }
  if ('const' in s && !deepEqual(s.const, value)) errors.push(`${at} must be ${JSON.stringify(s.const).slice(0, 100)}`)

  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) errors.push(`${at} must have at least ${s.minLength} characters`)
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) errors.push(`${at} must have at most ${s.maxLength} characters`)
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) errors.push(`${at} must be >= ${s.minimum}`)
    if (typeof s.maximum === 'number' && value > s.maximum) errors.push(`${at} must be <= ${s.maximum}`)
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) errors.push(`${at} must be > ${s.exclusiveMinimum}`)
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) errors.push(`${at} must be < ${s.exclusiveMaximum}`)
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) errors.push(`${at} must have at least ${s.minItems} items`)
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) errors.push(`${at} must have at most ${s.maxItems} items`)
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
      value.forEach((item, index) => check(s.items, item, `${path}[${index}]`, errors, depth + 1))
    }
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>
    const properties = (s.properties && typeof s.properties === 'object' ? s.properties : {}) as Record<string, unknown>
    if (Array.isArray(s.required)) {
      for (const key of s.required) {
        if (typeof key === 'string' && !Object.hasOwn(object, key)) errors.push(`${path ? `${path}.` : ''}${key} is required`)
      }
    }
    for (const [key, item] of Object.entries(object)) {
      const child = path ? `${path}.${key}` : key
      if (Object.hasOwn(properties, key)) check(properties[key], item, child, errors, depth + 1)
      else if (s.additionalProperties === false) errors.push(`${child} is not an accepted property`)
      else if (typeof s.additionalProperties === 'object') check(s.additionalProperties, item, child, errors, depth + 1)
    }
  }
  if (Array.isArray(s.allOf)) for (const part of s.allOf) check(part, value, path, errors, depth + 1)
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = s[keyword]
    if (Array.isArray(options) && options.length > 0 && !options.some((option) => checkAt(option, value, depth) === 0)) {
      errors.push(`${at} does not match any of the allowed shapes`)
    }
  }
}

function checkAt(schema: unknown, value: unknown, depth: number): number {
  const errors: string[] = []
  check(schema, value, '', errors, depth + 1)
  return errors.length
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

import { describe, expect, it } from 'vitest'
import { checkJsonSchema } from './index.js'

describe('checkJsonSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 10 },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      mode: { enum: ['fast', 'slow'] },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      nested: { type: 'object', properties: { flag: { type: 'boolean' } }, required: ['flag'], additionalProperties: false },
      either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['query'],
  }

  it('accepts valid arguments', () => {
    expect(checkJsonSchema(schema, { query: 'hi', limit: 5, mode: 'fast', tags: ['a'], nested: { flag: true }, either: 3 })).toEqual([])
  })

  it('reports every kind of mismatch clearly', () => {
    expect(checkJsonSchema(schema, {})).toEqual(['query is required'])
    expect(checkJsonSchema(schema, 'text')).toEqual(['the arguments must be object, got string'])
    expect(checkJsonSchema(schema, { query: '' })).toEqual(['query must have at least 1 characters'])
    expect(checkJsonSchema(schema, { query: 'x', limit: 2.5 })).toEqual(['limit must be integer, got number'])
    expect(checkJsonSchema(schema, { query: 'x', limit: 99 })).toEqual(['limit must be <= 50'])
    expect(checkJsonSchema(schema, { query: 'x', mode: 'medium' })).toEqual(['mode must be one of ["fast","slow"]'])
    expect(checkJsonSchema(schema, { query: 'x', tags: ['a', 1, 'c'] })).toEqual(['tags must have at most 2 items', 'tags[1] must be string, got integer'])
    expect(checkJsonSchema(schema, { query: 'x', nested: { other: 1 } })).toEqual(['nested.flag is required', 'nested.other is not an accepted property'])
    expect(checkJsonSchema(schema, { query: 'x', either: true })).toEqual(['either does not match any of the allowed shapes'])
  })

  it('survives hostile schemas (deep nesting, odd keywords)', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let index = 0; index < 1000; index++) deep = { type: 'object', properties: { x: deep } }
    let value: unknown = 'leaf'
    for (let index = 0; index < 1000; index++) value = { x: value }
    expect(() => checkJsonSchema(deep, value)).not.toThrow()
    expect(checkJsonSchema({ type: 'string', pattern: '(a+)+$' }, 'a'.repeat(50) + '!')).toEqual([])
    expect(checkJsonSchema(null, 5)).toEqual([])
    expect(checkJsonSchema(false, 5)).toEqual(['value is not allowed'])
  })
})

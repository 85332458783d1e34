import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ConfigurationError } from '../errors/errors.js'
import { defineTool, jsonSchema, parseToolInput, toolInputJsonSchema } from './define-tool.js'
import type { Tool } from './tool.js'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number().describe('first term'), b: z.number(), note: z.string().optional() }),
  execute: ({ a, b }) => a + b,
})

describe('defineTool', () => {
  it('builds a frozen tool with defaults: id = name, not idempotent, external effect', () => {
    expect(add.name).toBe('add')
    expect(add.id).toBe('add')
    expect(add.description).toBe('Adds two numbers')
    expect(add.idempotent).toBe(false)
    expect(add.effect).toBe('external')
    expect(Object.isFrozen(add)).toBe(true)
  })

  it('an idempotent tool defaults to the read effect; an explicit effect wins', () => {
    const base = { description: 'd', inputSchema: z.object({}), execute: () => null }
    expect(defineTool({ ...base, name: 'r', idempotent: true }).effect).toBe('read')
    expect(defineTool({ ...base, name: 'w', idempotent: true, effect: 'write' }).effect).toBe('write')
  })

  it('keeps execute, timeouts, approval and output caps as given', async () => {
    const needsApproval = () => true
    const tool = defineTool({
      name: 'deploy',
      description: 'Deploys',
      inputSchema: z.object({ env: z.string() }),
      execute: async ({ env }) => `deployed ${env}`,
      timeoutMs: 500,
      maxOutputBytes: 100,
      needsApproval,
    })
    expect(tool.timeoutMs).toBe(500)
    expect(tool.maxOutputBytes).toBe(100)
    expect(tool.needsApproval).toBe(needsApproval)
    await expect(Promise.resolve(tool.execute({ env: 'prod' }, {} as never))).resolves.toBe('deployed prod')
  })

  it('accepts names matching ^[a-zA-Z0-9_-]{1,64}$', () => {
    for (const name of ['a', 'read_file', 'web-fetch', 'Tool42', 'x'.repeat(64)]) {
      expect(defineTool({ name, description: '', inputSchema: z.object({}), execute: () => 1 }).name).toBe(name)
    }
  })

  it('rejects names a provider would refuse, with a ConfigurationError naming the pattern', () => {
    for (const name of ['excel.preview', 'has space', 'x'.repeat(65), 'ünïcode', 'slash/name']) {
      expect(() => defineTool({ name, description: '', inputSchema: z.object({}), execute: () => 1 })).toThrow(ConfigurationError)
    }
    expect(() => defineTool({ name: 'a.b', description: '', inputSchema: z.object({}), execute: () => 1 })).toThrow('^[a-zA-Z0-9_-]{1,64}$')
  })

  it('an id such as excel.preview is kept as identity and sanitized into the model-facing name', () => {
    const tool = defineTool({ id: 'excel.preview', description: 'Preview', inputSchema: z.object({}), execute: () => 1 })
    expect(tool.id).toBe('excel.preview')
    expect(tool.name).toBe('excel_preview')
    const named = defineTool({ id: 'excel.preview', name: 'previewSheet', description: '', inputSchema: z.object({}), execute: () => 1 })
    expect(named.name).toBe('previewSheet')
    expect(named.id).toBe('excel.preview')
  })

  it('needs a name or id, an execute function and an input schema', () => {
    expect(() => defineTool({ description: '', inputSchema: z.object({}), execute: () => 1 })).toThrow(/needs a name or an id/)
    expect(() => defineTool({ name: 'x', description: '', inputSchema: z.object({}), execute: undefined as never })).toThrow(/needs an execute function/)
    expect(() => defineTool({ name: 'x', description: '', inputSchema: undefined as never, execute: () => 1 })).toThrow(/needs an inputSchema/)
  })
})

describe('toolInputJsonSchema', () => {
  it('converts the zod schema with zod’s converter: an object with properties and required fields, without $schema', () => {
    const schema = toolInputJsonSchema(add)
    expect(schema).not.toHaveProperty('$schema')
    expect(schema.type).toBe('object')
    expect(schema.required).toEqual(['a', 'b'])
    expect(schema.properties).toEqual({
      a: { type: 'number', description: 'first term' },
      b: { type: 'number' },
      note: { type: 'string' },
    })
  })

  it('describes the input side: a field with a default is optional for the model', () => {
    const tool = defineTool({
      name: 'search',
      description: '',
      inputSchema: z.object({ query: z.string(), limit: z.number().int().default(10), mode: z.enum(['fast', 'deep']) }),
      execute: () => [],
    })
    const schema = toolInputJsonSchema(tool)
    expect(schema.required).toEqual(['query', 'mode'])
    expect((schema.properties as Record<string, { default?: unknown; enum?: unknown }>).limit?.default).toBe(10)
    expect((schema.properties as Record<string, { enum?: unknown }>).mode?.enum).toEqual(['fast', 'deep'])
  })

  it('does not fail on types JSON Schema cannot represent', () => {
    const tool = defineTool({ name: 'when', description: '', inputSchema: z.object({ at: z.date() }), execute: () => 1 })
    expect(() => toolInputJsonSchema(tool)).not.toThrow()
    expect(toolInputJsonSchema(tool).required).toEqual(['at'])
  })

  it('caches the conversion per schema object', () => {
    expect(toolInputJsonSchema(add)).toBe(toolInputJsonSchema(add))
    expect(toolInputJsonSchema({ inputSchema: add.inputSchema })).toBe(toolInputJsonSchema(add))
  })

  it('returns a raw jsonSchema() unchanged', () => {
    const raw = { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], $schema: 'http://json-schema.org/draft-07/schema#' }
    const tool = defineTool({ name: 'fetch', description: '', inputSchema: jsonSchema(raw), execute: () => 1 })
    expect(toolInputJsonSchema(tool)).toBe(raw)
  })
})

describe('parseToolInput', () => {
  it('returns the parsed value on success, with zod defaults and transforms applied', () => {
    const tool: Pick<Tool, 'inputSchema'> = { inputSchema: z.object({ q: z.string().trim(), limit: z.number().default(5) }) }
    expect(parseToolInput(tool, { q: '  cats ' })).toEqual({ success: true, value: { q: 'cats', limit: 5 } })
  })

  it('returns a readable message naming every bad field on failure', () => {
    const result = parseToolInput(add, { a: 'one', c: 3 })
    expect(result.success).toBe(false)
    if (result.success) return
    expect(result.error).toContain('expected number, received string')
    expect(result.error).toContain('→ at a')
    expect(result.error).toContain('→ at b')
    expect(result.error).not.toContain('[object Object]')
  })

  it('fails when the arguments are not an object at all', () => {
    const result = parseToolInput(add, 'not json')
    expect(result.success).toBe(false)
    if (!result.success) expect(result.error).toContain('expected object')
  })

  it('a raw jsonSchema() without validate accepts anything as is', () => {
    const args = { anything: [1, 2] }
    expect(parseToolInput({ inputSchema: jsonSchema({ type: 'object' }) }, args)).toEqual({ success: true, value: args })
  })

  it('a raw jsonSchema() with validate uses it for both outcomes', () => {
    const schema = jsonSchema<{ url: string }>({ type: 'object' }, (value) =>
      typeof (value as { url?: unknown })?.url === 'string'
        ? { success: true, value: value as { url: string } }
        : { success: false, error: 'url must be a string' },
    )
    expect(schema.kind).toBe('json-schema')
    expect(parseToolInput({ inputSchema: schema }, { url: 'https://example.com' })).toEqual({ success: true, value: { url: 'https://example.com' } })
    expect(parseToolInput({ inputSchema: schema }, { url: 3 })).toEqual({ success: false, error: 'url must be a string' })
  })
})

import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { z as z3 } from 'zod3'
import { z as zodV4FromZod3 } from 'zod3/v4'
import { ConfigurationError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import { ToolSchemaError } from '../errors/tool-schema-error.js'
import { AgentRuntime, Extensions, MemorySessionStore, ToolRegistry, assertToolInputSchema, defineTool, jsonSchema, mockModel } from '../index.js'

// `zod3` is the real zod 3 package, installed under an alias (devDependency `zod3: npm:zod@^3.25.0`).
const zod3Schema = z3.object({ a: z3.number() })

function thrown(action: () => unknown): unknown {
  try {
    action()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('a tool input schema Spindle cannot read', () => {
  it('defineTool refuses a zod 3 schema with a ToolSchemaError that names the fix', () => {
    const error = thrown(() => defineTool({ name: 'add', description: 'Adds', inputSchema: zod3Schema as never, execute: () => 1 }))
    expect(ToolSchemaError.isInstance(error)).toBe(true)
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(SpindleError.isInstance(error)).toBe(true)
    const schemaError = error as ToolSchemaError
    expect(schemaError.code).toBe('configuration')
    expect(schemaError.found).toBe('zod3')
    expect(schemaError.toolName).toBe('add')
    expect(schemaError.message).toContain('tool "add": inputSchema is a zod 3 schema')
    expect(schemaError.message).toContain('npm install zod@^4')
    expect(schemaError.message).toContain('jsonSchema()')
  })

  it('refuses a plain JSON Schema object, a string and null, pointing at jsonSchema()', () => {
    for (const inputSchema of [{ type: 'object', properties: {} }, 'object', 42]) {
      const error = thrown(() => assertToolInputSchema(inputSchema, 'lookup')) as ToolSchemaError
      expect(ToolSchemaError.isInstance(error)).toBe(true)
      expect(error.found).toBe('other')
      expect(error.message).toContain('not a zod 4 schema nor a jsonSchema() input')
    }
  })

  it('refuses a schema of another zod major', () => {
    const future = { _zod: { version: { major: 5, minor: 0, patch: 0 }, def: {} } }
    const error = thrown(() => assertToolInputSchema(future, 'next')) as ToolSchemaError
    expect(error.found).toBe('zod-other')
    expect(error.message).toContain('a zod 5 schema')
  })

  it('accepts zod 4 (also zod/v4 of the zod 3.25 package) and jsonSchema()', () => {
    expect(() => assertToolInputSchema(z.object({ a: z.number() }), 't')).not.toThrow()
    expect(() => assertToolInputSchema(zodV4FromZod3.object({ a: zodV4FromZod3.number() }), 't')).not.toThrow()
    expect(() => assertToolInputSchema(jsonSchema({ type: 'object' }), 't')).not.toThrow()
  })

  it('isInstance tells a ToolSchemaError from other configuration errors', () => {
    expect(ToolSchemaError.isInstance(new ConfigurationError('x'))).toBe(false)
    expect(ToolSchemaError.isInstance({})).toBe(false)
  })

  it('ToolRegistry.register refuses a hand-made tool whose schema is zod 3', () => {
    const tool = { name: 'add', id: 'add', description: 'Adds', inputSchema: zod3Schema, execute: () => 1, idempotent: true, effect: 'read' }
    expect(ToolSchemaError.isInstance(thrown(() => new ToolRegistry().register(tool as never)))).toBe(true)
  })

  it('a run whose agent carries a hand-made zod 3 tool is refused at admission, before anything is written', async () => {
    const sessions = new MemorySessionStore()
    const extensions = new Extensions().setStores({ sessions })
    const runtime = new AgentRuntime(extensions, { maxSteps: 2 })
    const tool = { name: 'add', id: 'add', description: 'Adds', inputSchema: zod3Schema, execute: () => 1, idempotent: true, effect: 'read' }
    const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 1 } }] }, { text: 'done' }])
    const error = await runtime
      .run({ agent: { name: 'calc', model, tools: { add: tool as never } }, input: 'hi', sessionId: 'ses_schema' })
      .catch((caught: unknown) => caught)
    expect(ToolSchemaError.isInstance(error)).toBe(true)
    expect((error as Error).message).toContain('zod 3 schema')
    expect(await sessions.listSessions()).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ConfigurationError, DuplicateError, NotFoundError } from '../errors/errors.js'
import { defineTool } from './define-tool.js'
import { ToolRegistry, toolEntries } from './tool-registry.js'

const tool = (name: string, description = name) => defineTool({ name, description, inputSchema: z.object({}), execute: () => name })

describe('ToolRegistry', () => {
  it('registers under the tool name and returns it from get and require', () => {
    const registry = new ToolRegistry()
    const read = tool('read')
    expect(registry.register(read)).toBe(registry)
    expect(registry.get('read')).toBe(read)
    expect(registry.require('read')).toBe(read)
    expect(registry.size).toBe(1)
    expect(registry.names()).toEqual(['read'])
    expect([...registry.entries()]).toEqual([['read', read]])
  })

  it('registers under another model-facing name when given one', () => {
    const registry = new ToolRegistry().register(tool('read'), 'read_file')
    expect(registry.get('read')).toBeUndefined()
    expect(registry.get('read_file')?.name).toBe('read')
  })

  it('rejects a duplicate name with DuplicateError and keeps the first tool', () => {
    const first = tool('read', 'first')
    const registry = new ToolRegistry().register(first)
    expect(() => registry.register(tool('read', 'second'))).toThrow(DuplicateError)
    expect(registry.get('read')).toBe(first)
  })

  it('replace swaps a tool and unregister removes it', () => {
    const registry = new ToolRegistry().register(tool('read', 'first'))
    const second = tool('read', 'second')
    registry.replace(second)
    expect(registry.get('read')).toBe(second)
    expect(registry.unregister('read')).toBe(true)
    expect(registry.unregister('read')).toBe(false)
    expect(registry.size).toBe(0)
  })

  it('rejects names a provider would refuse, suggesting a sanitized key', () => {
    const registry = new ToolRegistry()
    let caught: unknown
    try {
      registry.register(tool('ok'), 'excel.preview')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigurationError)
    expect((caught as Error).message).toContain('excel_preview')
    expect(() => registry.replace(tool('ok'), 'with space')).toThrow(ConfigurationError)
    expect(registry.size).toBe(0)
  })

  it('require of an unknown tool lists the registered ones', () => {
    const registry = new ToolRegistry().register(tool('read')).register(tool('write'))
    expect(() => registry.require('delete')).toThrow(NotFoundError)
    expect(() => registry.require('delete')).toThrow(/"delete".*read, write/)
    expect(() => new ToolRegistry().require('x')).toThrow(/\(none\)/)
  })

  it('registerAll takes an object keyed by model-facing names, or an array', () => {
    const registry = new ToolRegistry().registerAll({ previewSheet: tool('preview') }).registerAll([tool('read'), tool('write')])
    expect(registry.names()).toEqual(['previewSheet', 'read', 'write'])
    expect(() => registry.registerAll([tool('read')])).toThrow(DuplicateError)
  })
})

describe('toolEntries', () => {
  it('normalizes undefined, arrays and objects into [name, tool] pairs', () => {
    const read = tool('read')
    expect(toolEntries(undefined)).toEqual([])
    expect(toolEntries([read])).toEqual([['read', read]])
    expect(toolEntries({ readFile: read })).toEqual([['readFile', read]])
  })
})

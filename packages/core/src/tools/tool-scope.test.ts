import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ConfigurationError } from '../errors/errors.js'
import { defineTool, jsonSchema } from './define-tool.js'
import { ToolRegistry } from './tool-registry.js'
import { ToolScope } from './tool-scope.js'

const tool = (name: string, description = name) => defineTool({ name, description, inputSchema: z.object({ q: z.string() }), execute: () => name })

describe('ToolScope', () => {
  it('shows every registry tool when no names are given', () => {
    const registry = new ToolRegistry().register(tool('read')).register(tool('write'))
    const scope = new ToolScope(registry, [])
    expect(scope.names()).toEqual(['read', 'write'])
    expect(scope.size).toBe(2)
    expect(scope.get('read')).toBe(registry.get('read'))
  })

  it('limits registry tools to the given names, ignoring unknown ones', () => {
    const registry = new ToolRegistry().register(tool('read')).register(tool('write'))
    const scope = new ToolScope(registry, [], ['write', 'missing'])
    expect(scope.names()).toEqual(['write'])
    expect(scope.get('read')).toBeUndefined()
    expect(new ToolScope(registry, [], []).size).toBe(0)
  })

  it('per-run tools shadow registry tools of the same name and add new ones', () => {
    const registry = new ToolRegistry().register(tool('read', 'from registry'))
    const runRead = tool('read', 'from run')
    const scope = new ToolScope(registry, [
      ['read', runRead],
      ['extra', tool('extra')],
    ])
    expect(scope.get('read')).toBe(runRead)
    expect(scope.names()).toEqual(['read', 'extra'])
  })

  it('works without a registry', () => {
    const scope = new ToolScope(undefined, [['only', tool('only')]])
    expect(scope.names()).toEqual(['only'])
  })

  it('rejects a per-run tool key a provider would refuse', () => {
    expect(() => new ToolScope(undefined, [['excel.preview', tool('ok')]])).toThrow(ConfigurationError)
  })

  it('builds specs with the scope key as the name, the description and the JSON Schema, computed once', () => {
    const raw = { type: 'object', properties: { url: { type: 'string' } } }
    const scope = new ToolScope(new ToolRegistry().register(tool('read', 'Reads a file')), [
      ['previewSheet', defineTool({ id: 'excel.preview', description: 'Preview', inputSchema: jsonSchema(raw), execute: () => 1 })],
    ])
    const specs = scope.specs()
    expect(specs).toEqual([
      { name: 'read', description: 'Reads a file', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      { name: 'previewSheet', description: 'Preview', inputSchema: raw },
    ])
    expect(scope.specs()).toBe(specs)
  })
})

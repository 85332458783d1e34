import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/errors.js'
import { assertToolName, sanitizeToolName, toolNamePattern } from './tool-name.js'

describe('toolNamePattern', () => {
  it('is exactly ^[a-zA-Z0-9_-]{1,64}$', () => {
    expect(toolNamePattern.source).toBe('^[a-zA-Z0-9_-]{1,64}$')
    expect(toolNamePattern.test('')).toBe(false)
    expect(toolNamePattern.test('a'.repeat(64))).toBe(true)
    expect(toolNamePattern.test('a'.repeat(65))).toBe(false)
    expect(toolNamePattern.test('a\nb')).toBe(false)
  })
})

describe('assertToolName', () => {
  it('accepts valid names and rejects others with a ConfigurationError suggesting a safe key', () => {
    expect(() => assertToolName('read_file-2')).not.toThrow()
    let caught: unknown
    try {
      assertToolName('excel.preview')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigurationError)
    expect((caught as Error).message).toContain('"excel.preview"')
    expect((caught as Error).message).toContain('tools: { excel_preview: tool }')
  })
})

describe('sanitizeToolName', () => {
  it('turns ids into provider-safe names', () => {
    expect(sanitizeToolName('excel.preview')).toBe('excel_preview')
    expect(sanitizeToolName('mcp/github:create issue')).toBe('mcp_github_create_issue')
    expect(sanitizeToolName('already_fine-1')).toBe('already_fine-1')
  })

  it('replaces each non-ASCII UTF-16 unit, caps at 64 characters and never returns an empty name', () => {
    expect(sanitizeToolName('café')).toBe('caf_')
    const long = sanitizeToolName('x.'.repeat(50))
    expect(long).toHaveLength(64)
    expect(toolNamePattern.test(long)).toBe(true)
    expect(sanitizeToolName('')).toBe('tool')
  })

  it('always produces a name that passes the pattern', () => {
    for (const id of ['a.b.c', '🙂 emoji', ' ', '---', 'x'.repeat(200), 'Ω']) expect(toolNamePattern.test(sanitizeToolName(id))).toBe(true)
  })
})

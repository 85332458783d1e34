// toolResultParts: which tool results go to a model as images, and which stay text.
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../spec/json.js'
import { toolResultParts } from './tool-result-content.js'

const png = 'iVBORw0KGgo='

describe('toolResultParts', () => {
  it('returns undefined for a result without an image (it goes as text, as before)', () => {
    expect(toolResultParts({ content: [{ type: 'text', text: 'hi' }] })).toBeUndefined()
    expect(toolResultParts('plain')).toBeUndefined()
  })

  it('splits MCP content into text and image parts, other keys last as one JSON text part', () => {
    const result: JsonValue = {
      content: [
        { type: 'text', text: 'chart:' },
        { type: 'image', mimeType: 'image/PNG', data: png },
      ],
      structuredContent: { n: 1 },
    }
    expect(toolResultParts(result)).toEqual([
      { type: 'text', text: 'chart:' },
      { type: 'image', mediaType: 'image/png', data: png },
      { type: 'text', text: '{"structuredContent":{"n":1}}' },
    ])
  })

  it('accepts a Spindle file part, and keeps an unsupported type or undecodable data as text', () => {
    expect(toolResultParts([{ type: 'file', mediaType: 'image/webp', data: png }])).toEqual([{ type: 'image', mediaType: 'image/webp', data: png }])
    expect(toolResultParts([{ type: 'image', mimeType: 'image/bmp', data: png }])).toBeUndefined()
    expect(toolResultParts([{ type: 'image', mimeType: 'image/png', data: 'not base64!' }])).toBeUndefined()
  })
})

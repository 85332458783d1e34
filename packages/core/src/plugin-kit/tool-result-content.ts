// A tool result holding images, split into text and image parts so the model sees the images as images, not as
// thousands of characters of base64. Results look like MCP's CallToolResult (`{ content: [{ type: 'image',
// mimeType, data }, { type: 'text', text }], structuredContent? }`), which @spindle/mcp returns and any tool may.
import type { JsonObject, JsonValue } from '../spec/json.js'
import { wellFormed } from './well-formed.js'

/** One part of a tool result: text, or an image as bare base64. */
export type ToolResultContentPart = { type: 'text'; text: string } | { type: 'image'; mediaType: string; data: string }

/** The image types both OpenAI and Anthropic accept; other images stay text, as the API would refuse them. */
const imageMediaTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/**
 * The parts of a tool result that holds at least one image, in order, or `undefined` (the result then goes as text,
 * as before). Recognized: `{ content: [...] }` (other keys, such as `structuredContent`, follow as one JSON text
 * part), an array of parts, or one image. An image part is `{ type: 'image', mimeType | mediaType, data }` (MCP) or
 * `{ type: 'file', mediaType: 'image/…', data }` (a Spindle FilePart), with base64 `data` of a PNG, JPEG, GIF or WebP
 * image; `{ type: 'text', text }` parts stay text; any other part is sent as its JSON.
 */
export function toolResultParts(result: JsonValue): ToolResultContentPart[] | undefined {
  let items: JsonValue[] | undefined
  let rest: JsonObject | undefined
  if (Array.isArray(result)) items = result
  else if (isObject(result) && Array.isArray(result.content)) {
    items = result.content
    const { content: _content, ...others } = result
    if (Object.keys(others).length > 0) rest = others
  } else if (imageOf(result)) items = [result]
  if (!items?.some((item) => imageOf(item) !== undefined)) return undefined
  const parts: ToolResultContentPart[] = []
  for (const item of items) {
    const image = imageOf(item)
    if (image) parts.push(image)
    else if (isObject(item) && item.type === 'text' && typeof item.text === 'string') parts.push({ type: 'text', text: item.text })
    else parts.push({ type: 'text', text: JSON.stringify(wellFormed(item)) })
  }
  if (rest) parts.push({ type: 'text', text: JSON.stringify(wellFormed(rest)) })
  return parts
}

function imageOf(item: JsonValue | undefined): ToolResultContentPart | undefined {
  if (!isObject(item) || typeof item.data !== 'string') return undefined
  const mediaType = item.type === 'image' ? (item.mimeType ?? item.mediaType) : item.type === 'file' ? item.mediaType : undefined
  if (typeof mediaType !== 'string' || !imageMediaTypes.has(mediaType.toLowerCase())) return undefined
  const data = item.data.replace(/\s+/g, '')
  // Data the API could not decode would fail every later request of the session: such an image stays text.
  if (data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return undefined
  return { type: 'image', mediaType: mediaType.toLowerCase(), data }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

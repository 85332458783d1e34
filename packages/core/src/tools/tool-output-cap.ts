// The cap on a tool result that holds images or other binary media (MCP's `{ content: [...] }`, Spindle file parts):
// the media stay out of the text cut. Images go to the model whole, as images, up to their own bound per result;
// images past it and other binary media (audio, PDF, blobs) are stored as artifacts and named in a text note. Only
// the text parts share `maxToolOutputBytes`, cut head and tail as any text result is.
import type { ArtifactStore } from '../spec/artifact-store.js'
import type { JsonObject, JsonValue } from '../spec/json.js'
import { truncateOutput } from './truncate-output.js'
import { isPending } from '../util/fast-path.js'

/** Default bound on the base64 bytes of the images one tool result sends as images (Anthropic's 5 MB per image). */
export const defaultMaxToolMediaBytes = 5_000_000

/** The image types both OpenAI and Anthropic accept in a tool result. */
const sendableImageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
/** A text part of a capped result never shrinks below this (a note stays readable). */
const minimumTextShare = 256

export interface CapMediaOptions {
  /** Bytes the text parts may take together (`maxToolOutputBytes`, or the context's smaller share). */
  maxBytes: number
  /** Base64 bytes of the images kept whole, for the whole result (`maxToolMediaBytes`). */
  maxMediaBytes: number
  /** Where media left out are kept; without it, the note says they were left out. */
  artifacts?: ArtifactStore
  /** Artifact name prefix and metadata (run, call, tool). */
  name?: string
  metadata?: JsonObject
}

interface MediaItem {
  mediaType: string
  data: string
  /** Sent to the model as an image when it fits the bound. */
  image: boolean
}

/**
 * The result, capped, when it holds media (`undefined` otherwise: the text rules apply). Synchronous when nothing
 * needs storing; a Promise when media go to the artifact store.
 *
 * @example
 * const shaped = capMediaToolOutput(result, { maxBytes: 32_000, maxMediaBytes: 5_000_000, artifacts })
 * if (shaped !== undefined) return shaped
 */
export function capMediaToolOutput(result: JsonValue, options: CapMediaOptions): JsonValue | Promise<JsonValue> | undefined {
  const split = splitContent(result)
  if (!split) return undefined
  const { items, rest } = split
  let mediaBudget = options.maxMediaBytes
  const leftOut: Array<{ index: number; media: MediaItem }> = []
  const textIndexes: number[] = []
  let textBytes = 0
  const texts = new Map<number, string>()
  // Other binary media count as the text they were while the result fits; past the bound they go to artifacts.
  const binary: Array<{ index: number; media: MediaItem; bytes: number }> = []
  items.forEach((item, index) => {
    const media = mediaOf(item)
    if (media?.image && media.data.length <= mediaBudget) mediaBudget -= media.data.length
    else if (media?.image) leftOut.push({ index, media })
    else if (media) {
      const bytes = Buffer.byteLength(JSON.stringify(item))
      binary.push({ index, media, bytes })
      textBytes += bytes
    }
    if (media) return
    const text = isObject(item) && item.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item)
    texts.set(index, text)
    textIndexes.push(index)
    textBytes += Buffer.byteLength(text)
  })
  if (rest) {
    const text = JSON.stringify(rest)
    texts.set(items.length, text)
    textIndexes.push(items.length)
    textBytes += Buffer.byteLength(text)
  }
  if (textBytes > options.maxBytes) {
    for (const { index, media, bytes } of binary) {
      leftOut.push({ index, media })
      textBytes -= bytes
    }
    leftOut.sort((a, b) => a.index - b.index)
  }
  if (leftOut.length === 0 && textBytes <= options.maxBytes) return result
  const build = (notes: Map<number, string>): JsonValue => {
    const content: JsonValue[] = []
    items.forEach((item, index) => {
      const note = notes.get(index)
      if (note !== undefined) content.push({ type: 'text', text: note })
      else if (texts.has(index)) content.push({ type: 'text', text: cutText(texts.get(index)!, textBytes, options.maxBytes) })
      else content.push(item)
    })
    if (rest) content.push({ type: 'text', text: cutText(texts.get(items.length)!, textBytes, options.maxBytes) })
    return { content }
  }
  if (leftOut.length === 0 || !options.artifacts) return build(new Map(leftOut.map(({ index, media }) => [index, leftOutNote(media, options.maxMediaBytes)])))
  const artifacts = options.artifacts
  return (async () => {
    const notes = new Map<number, string>()
    for (const { index, media } of leftOut) {
      let artifactId: string | undefined
      try {
        const stored = await artifacts.put(Buffer.from(media.data, 'base64'), {
          mediaType: media.mediaType,
          ...(options.name !== undefined && { name: `${options.name}-${index}` }),
          ...(options.metadata !== undefined && { metadata: options.metadata }),
        })
        artifactId = stored.id
      } catch {
        // The call ran and its result is journaled whole: a store outage only makes the note say less.
      }
      notes.set(index, leftOutNote(media, options.maxMediaBytes, artifactId))
    }
    return build(notes)
  })()
}

/** The note in place of a media part left out. */
function leftOutNote(media: MediaItem, maxMediaBytes: number, artifactId?: string): string {
  const padding = media.data.endsWith('==') ? 2 : media.data.endsWith('=') ? 1 : 0
  const bytes = (media.data.length / 4) * 3 - padding
  const why = media.image ? `over the ${maxMediaBytes}-byte bound on images in one tool result` : 'not sent to the model (binary media)'
  const where = artifactId ? `; kept as artifact ${artifactId}` : ''
  return `[${media.mediaType} of ${bytes} bytes ${why}${where}]`
}

/** A text part's share of the text bound, cut head and tail when the parts together exceed it. */
function cutText(text: string, totalBytes: number, maxBytes: number): string {
  if (totalBytes <= maxBytes) return text
  const share = Math.max(minimumTextShare, Math.floor((maxBytes * Buffer.byteLength(text)) / totalBytes))
  return truncateOutput(text, share).value as string
}

/** The parts of a result that holds at least one media part: `{ content: [...] }`, an array of parts, or one part. */
function splitContent(result: JsonValue): { items: JsonValue[]; rest?: JsonObject } | undefined {
  let items: JsonValue[] | undefined
  let rest: JsonObject | undefined
  if (Array.isArray(result)) items = result
  else if (isObject(result) && Array.isArray(result.content)) {
    items = result.content
    const { content: _content, ...others } = result
    if (Object.keys(others).length > 0) rest = others
  } else if (mediaOf(result)) items = [result]
  if (!items || !items.some((item) => mediaOf(item) !== undefined)) return undefined
  return rest ? { items, rest } : { items }
}

/**
 * A binary media part: MCP `{ type: 'image' | 'audio', mimeType, data }`, an embedded resource with a `blob`, or a
 * Spindle `{ type: 'file', mediaType, data }` with base64 data. An image of a type both providers accept, with data
 * they can decode, is sent as an image; any other media only as an artifact.
 */
function mediaOf(item: JsonValue | undefined): MediaItem | undefined {
  if (!isObject(item)) return undefined
  let mediaType: JsonValue | undefined
  let data: JsonValue | undefined
  if ((item.type === 'image' || item.type === 'audio') && typeof item.data === 'string') [mediaType, data] = [item.mimeType ?? item.mediaType, item.data]
  else if (item.type === 'file' && typeof item.data === 'string') [mediaType, data] = [item.mediaType, item.data]
  else if (item.type === 'resource' && isObject(item.resource) && typeof item.resource.blob === 'string')
    [mediaType, data] = [item.resource.mimeType ?? 'application/octet-stream', item.resource.blob]
  if (typeof mediaType !== 'string' || typeof data !== 'string') return undefined
  const clean = data.replace(/\s+/g, '')
  // A `file` part of text (not base64) is text, not media.
  if (clean.length === 0 || clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(clean)) return undefined
  const type = mediaType.toLowerCase()
  return { mediaType: type, data: clean, image: item.type !== 'audio' && item.type !== 'resource' && sendableImageTypes.has(type) }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A journaled result as it enters the context again (a run that stops before its next step answers the calls it
 * journaled): media kept out of the text cut as on the first pass, without storing anything; text cut head and tail.
 *
 * @example
 * capJournaledOutput(record.result ?? null, { maxToolOutputBytes: 32_000 })
 */
export function capJournaledOutput(result: JsonValue, policy: { maxToolOutputBytes: number; maxToolMediaBytes?: number }): JsonValue {
  const media = capMediaToolOutput(result, { maxBytes: policy.maxToolOutputBytes, maxMediaBytes: policy.maxToolMediaBytes ?? defaultMaxToolMediaBytes })
  // Without an artifact store the cap is synchronous.
  if (media !== undefined && !isPending(media)) return media
  return truncateOutput(result, policy.maxToolOutputBytes).value
}

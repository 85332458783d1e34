// A Spindle FilePart → an Anthropic `image` or `document` block. The part's data is base64, an http(s)
// URL, or a `data:` URL (what the OpenAI APIs take), which is unpacked because Anthropic wants bare base64.
import type Anthropic from '@anthropic-ai/sdk'
import { ConfigurationError, type FilePart } from '@spindle/core'

type ContentBlockParam = Anthropic.Messages.ContentBlockParam

export function convertFile(part: FilePart): ContentBlockParam {
  const label = part.name ?? (part.data.length > 60 ? `${part.data.slice(0, 60)}…` : part.data)
  if (part.data.startsWith('artifact:')) {
    throw new ConfigurationError(
      `[spindle/anthropic] file part "${label}" is an artifact reference; resolve it to base64 data or a URL before calling the model`,
    )
  }
  const isUrl = /^https?:\/\//i.test(part.data)
  const data = isUrl ? part.data : base64Of(part, label)
  const title = part.name ? { title: part.name } : {}
  if (part.mediaType.startsWith('image/')) {
    return isUrl
      ? { type: 'image', source: { type: 'url', url: data } }
      : { type: 'image', source: { type: 'base64', media_type: part.mediaType as 'image/png', data } }
  }
  if (part.mediaType === 'application/pdf') {
    return isUrl
      ? { type: 'document', source: { type: 'url', url: data }, ...title }
      : { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data }, ...title }
  }
  if (part.mediaType.startsWith('text/')) {
    if (isUrl) throw new ConfigurationError(`[spindle/anthropic] text file "${label}" must be sent as base64 data, not a URL`)
    const text = Buffer.from(data, 'base64').toString('utf8')
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title }
  }
  throw new ConfigurationError(`[spindle/anthropic] unsupported file media type "${part.mediaType}"; Anthropic accepts images, PDF and text documents`)
}

/**
 * The part's bytes as bare base64. A `data:[<media type>][;…][;base64],<payload>` URL is unpacked
 * (a percent-encoded payload is re-encoded as base64); its media type, when given, must be the part's.
 */
function base64Of(part: FilePart, label: string): string {
  if (!/^data:/i.test(part.data)) return part.data
  const comma = part.data.indexOf(',')
  if (comma < 0)
    throw new ConfigurationError(
      `[spindle/anthropic] file part "${label}" is a data: URL without a comma before its payload; pass base64 data or a well-formed data: URL`,
    )
  const [declared = '', ...parameters] = part.data.slice('data:'.length, comma).split(';')
  const payload = part.data.slice(comma + 1)
  const urlMediaType = declared.trim().toLowerCase()
  const partMediaType = part.mediaType.split(';')[0]!.trim().toLowerCase()
  if (urlMediaType && urlMediaType !== partMediaType) {
    throw new ConfigurationError(
      `[spindle/anthropic] file part "${label}" has mediaType "${part.mediaType}" but its data: URL says "${urlMediaType}"; make them agree`,
    )
  }
  if (!parameters.some((parameter) => parameter.trim().toLowerCase() === 'base64')) return percentDecode(payload).toString('base64')
  const base64 = (payload.includes('%') ? percentDecode(payload).toString('latin1') : payload).replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
    throw new ConfigurationError(`[spindle/anthropic] file part "${label}" is a data: URL whose payload is not base64`)
  return base64
}

/** The bytes of a percent-encoded string (RFC 3986): `%XX` escapes as bytes, other characters as UTF-8. */
function percentDecode(text: string): Buffer {
  return Buffer.concat(
    text
      .split(/(%[0-9A-Fa-f]{2})/)
      .map((piece) => (/^%[0-9A-Fa-f]{2}$/.test(piece) ? Buffer.from([Number.parseInt(piece.slice(1), 16)]) : Buffer.from(piece, 'utf8'))),
  )
}

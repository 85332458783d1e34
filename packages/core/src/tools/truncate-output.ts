// Head-and-tail truncation of oversized tool output before it enters the context.
import type { JsonValue } from '../spec/json.js'

/** A tool result as it enters the context: the value, whether it was truncated, its size and its serialized form. */
export interface TruncatedOutput {
  value: JsonValue
  truncated: boolean
  bytes: number
  serialized: string
}

/** Serializes a result; above `maxBytes` keeps the head and the tail with a marker naming what was cut. */
export function truncateOutput(result: JsonValue, maxBytes: number, artifactId?: string): TruncatedOutput {
  const serialized = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null')
  const bytes = Buffer.byteLength(serialized)
  if (bytes <= maxBytes) return { value: result, truncated: false, bytes, serialized }
  const half = Math.max(1, Math.floor(maxBytes / 2) - 64)
  const head = sliceBytes(serialized, 0, half)
  const tail = sliceBytesFromEnd(serialized, half)
  const where = artifactId ? ` The whole output is artifact ${artifactId}; read ranges of it with the read_artifact tool.` : ''
  const marker = `\n…[truncated ${bytes - Buffer.byteLength(head) - Buffer.byteLength(tail)} of ${bytes} bytes.${where}]…\n`
  return { value: `${head}${marker}${tail}`, truncated: true, bytes, serialized }
}

function sliceBytes(text: string, start: number, length: number): string {
  return Buffer.from(text)
    .subarray(start, start + length)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')
}

function sliceBytesFromEnd(text: string, length: number): string {
  const buffer = Buffer.from(text)
  return buffer
    .subarray(Math.max(0, buffer.length - length))
    .toString('utf8')
    .replace(/^\uFFFD+/, '')
}

// jsonb cannot hold U+0000 (PostgreSQL text never can), yet JSON values may (the kernel's doom-loop signature in a
// run snapshot joins names with it). Strings holding it are stored escaped behind a marker and restored on read.
import type { JsonValue } from '@spindle/core'

/** A noncharacter (never in interchanged text) that marks an escaped string. */
const marker = '\uFDD0'

function needsEscape(value: string): boolean {
  return value.includes('\u0000') || value.startsWith(marker)
}

function escapeString(value: string): string {
  return needsEscape(value) ? marker + value.replaceAll('\\', '\\\\').replaceAll('\u0000', '\\0') : value
}

function unescapeString(value: string): string {
  return value.startsWith(marker) ? value.slice(marker.length).replace(/\\([\\0])/g, (_, character: string) => (character === '0' ? '\u0000' : '\\')) : value
}

function map(value: unknown, convert: (text: string) => string): unknown {
  if (typeof value === 'string') return convert(value)
  if (Array.isArray(value)) return value.map((item) => map(item, convert))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[convert(key)] = map(item, convert)
    return out
  }
  return value
}

/** JSON text for a jsonb parameter; values without U+0000 (the usual case) are stringified as they are. */
export function toJsonbText(value: unknown): string {
  const text = JSON.stringify(value)
  return text.includes('\\u0000') || text.includes(marker) ? JSON.stringify(map(value, escapeString)) : text
}

/** The value read back from a jsonb column written with `toJsonbText`. */
export function fromJsonb<T extends JsonValue | unknown>(value: T): T {
  return map(value, unescapeString) as T
}

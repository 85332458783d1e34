// PostgreSQL text never holds U+0000, jsonb refuses its `\u0000` escape and unpaired surrogates, and pg encodes a
// lone surrogate of a text parameter as U+FFFD. Values may hold all three (a tool's binary output, an emoji split
// across two text deltas, the kernel's doom-loop signature): such strings are stored escaped behind a marker and
// restored on read, in JSON values and free-text columns alike. Keys (ids) holding them are refused instead.
import { StoreError } from '@spindle/core'

/** A noncharacter (never in interchanged text) that marks an escaped string. */
const marker = '\uFDD0'
const markerCode = 0xfdd0

/** An unpaired surrogate (with the `u` flag, a surrogate pair is one code point, outside the class). */
const loneSurrogate = /[\uD800-\uDFFF]/u
const loneSurrogates = /[\uD800-\uDFFF]/gu

/** True when PostgreSQL text would refuse (U+0000) or change (a lone surrogate) the string. */
function unstorable(value: string): boolean {
  return value.includes('\u0000') || loneSurrogate.test(value)
}

/** What JSON.stringify writes for U+0000 and unpaired surrogates (lower-case `\udXXX`), or the marker. */
const unstorableInJson = /\\u(?:0000|d[89a-f])|\uFDD0/

function needsEscape(value: string): boolean {
  return value.charCodeAt(0) === markerCode || unstorable(value)
}

function escapeSurrogate(surrogate: string): string {
  return `\\u${surrogate.charCodeAt(0).toString(16)}`
}

/** The marker, then the string with `\` doubled, U+0000 as `\0` and each lone surrogate as `\udXXX`. */
function escapeString(value: string): string {
  if (!needsEscape(value)) return value
  return marker + value.replaceAll('\\', '\\\\').replaceAll('\u0000', '\\0').replace(loneSurrogates, escapeSurrogate)
}

function unescapeString(value: string): string {
  if (value.charCodeAt(0) !== markerCode) return value
  return value
    .slice(1)
    .replace(/\\(\\|0|u[0-9a-f]{4})/g, (_, escaped: string) =>
      escaped === '\\' ? '\\' : escaped === '0' ? '\u0000' : String.fromCharCode(Number.parseInt(escaped.slice(1), 16)),
    )
}

/** JSON.stringify replacer of the slow path: escapes every string, and the keys of objects that need it. */
function escapeReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return escapeString(value)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  for (const key of Object.keys(value)) {
    // Object.fromEntries defines own properties (a `__proto__` key stays a key).
    if (needsEscape(key)) return Object.fromEntries(Object.entries(value).map(([name, item]) => [escapeString(name), item]))
  }
  return value
}

/**
 * JSON text for a jsonb parameter. The usual value is stringified once and searched for `\u` and the marker (two
 * `includes`, about 0.1% of the stringify); only a value holding U+0000, an unpaired surrogate or the marker is
 * stringified again with its strings escaped.
 */
export function toJsonbText(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) throw new StoreError('[spindle/store-postgres] cannot store an undefined value as JSON; pass a JSON value')
  const suspect = text.includes('\\u') || text.includes(marker)
  return suspect && unstorableInJson.test(text) ? JSON.stringify(value, escapeReplacer) : text
}

/**
 * The value read back from a jsonb column written with `toJsonbText` (escaped strings and keys restored). Changes
 * the freshly parsed value in place; objects with an escaped key are rebuilt.
 */
export function fromJsonb<T>(value: T): T {
  return restore(value) as T
}

function restore(value: unknown): unknown {
  if (typeof value === 'string') return value.charCodeAt(0) === markerCode ? unescapeString(value) : value
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (typeof item === 'string') {
        if (item.charCodeAt(0) === markerCode) value[index] = unescapeString(item)
      } else if (typeof item === 'object' && item !== null) value[index] = restore(item)
    }
    return value
  }
  const record = value as Record<string, unknown>
  let escapedKey = false
  // A parsed JSON object: its own keys only (for…in allocates no key array).
  for (const key in record) {
    const item = record[key]
    if (typeof item === 'string') {
      if (item.charCodeAt(0) === markerCode) record[key] = unescapeString(item)
    } else if (typeof item === 'object' && item !== null) {
      const restored = restore(item)
      if (restored !== item) record[key] = restored
    }
    if (key.charCodeAt(0) === markerCode) escapedKey = true
  }
  return escapedKey ? Object.fromEntries(Object.entries(record).map(([key, item]) => [unescapeString(key), item])) : record
}

/** A free-text column's parameter (a title, an embedding's content, an artifact's name), escaped when it must be. */
export function toText<T extends string | null | undefined>(value: T): T {
  return (typeof value === 'string' ? escapeString(value) : value) as T
}

/** A free-text column read back (written with `toText`). */
export function fromText<T extends string | null>(value: T): T {
  return (typeof value === 'string' ? unescapeString(value) : value) as T
}

/**
 * Checks a key stored in a text column (ids, namespaces, idempotency keys): one holding U+0000 or an unpaired
 * surrogate cannot be stored as it is, and is refused before anything is written.
 */
export function assertKey(value: string, what: string): void {
  if (unstorable(value)) {
    throw new StoreError(
      `[spindle/store-postgres] ${what} ${JSON.stringify(value)} holds U+0000 or an unpaired UTF-16 surrogate, which PostgreSQL text cannot store; use ids and keys without them`,
      { details: { key: what, value } },
    )
  }
}

// Encoding helpers shared by the SQLite stores: lossless JSON text columns and checks on indexed keys.
import { StoreError, type JsonObject, type JsonValue } from '@spindle/core'

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** True when the string holds no lone surrogate, so SQLite's UTF-8 text keeps it exactly. */
export function isWellFormed(value: string): boolean {
  return !loneSurrogate.test(value)
}

/**
 * Checks a value stored in an indexed TEXT column (ids, keys, namespaces). Those are compared by SQLite as
 * UTF-8, where a lone surrogate would silently become U+FFFD, so they are rejected explicitly instead.
 * Free text (titles, messages, metadata) goes through `toJsonText`, which keeps every code unit.
 */
export function assertKey(value: unknown, what: string): string {
  if (typeof value !== 'string') {
    throw new StoreError(`[spindle/store-sqlite] ${what} must be a string, got ${value === null ? 'null' : typeof value}`)
  }
  if (!isWellFormed(value)) {
    throw new StoreError(
      `[spindle/store-sqlite] ${what} ${JSON.stringify(value)} contains a lone UTF-16 surrogate, which SQLite cannot store as a key; use well-formed Unicode for ids, keys and namespaces`,
    )
  }
  return value
}

/** JSON text for a TEXT column. JSON.stringify escapes NUL and lone surrogates, so the value round-trips exactly. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value)
  if (text === undefined) throw new StoreError('[spindle/store-sqlite] Cannot store an undefined value; pass a JSON value')
  return text
}

export function fromJsonText<T = JsonValue>(text: string): T {
  return JSON.parse(text) as T
}

export function fromJsonObject(text: string | null | undefined): JsonObject {
  return text === null || text === undefined ? {} : (JSON.parse(text) as JsonObject)
}

/** SQLite limits: LIMIT -1 means no limit (absent, or Infinity: SQLite refuses a REAL limit as a datatype mismatch). */
export function sqlLimit(limit: number | undefined): number {
  if (limit === undefined || Number.isNaN(limit) || limit === Number.POSITIVE_INFINITY) return -1
  return Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(limit)))
}

// Converts whatever a tool returned into a JSON value (undefined → null, Errors → messages, BigInt → string).
import type { JsonValue } from '../spec/json.js'

export function toJsonValue(value: unknown): JsonValue {
  if (value === undefined) return null
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  try {
    return JSON.parse(
      JSON.stringify(value, (_key, inner: unknown) => {
        if (typeof inner === 'bigint') return inner.toString()
        if (inner instanceof Uint8Array) return `<${inner.byteLength} bytes>`
        if (inner instanceof Error) return { name: inner.name, message: inner.message }
        return inner
      }),
    ) as JsonValue
  } catch {
    return String(value)
  }
}

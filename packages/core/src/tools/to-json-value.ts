// Converts whatever a tool returned into a JSON value (undefined → null, Errors → messages, BigInt → string).
import type { JsonValue } from '../spec/json.js'

/**
 * Whatever a tool returned, as a JSON value: `undefined` becomes `null`, an Error `{ name, message }`, a BigInt or a
 * non-finite number a string, bytes `'<n bytes>'`; a value JSON cannot hold at all becomes its `String()`.
 *
 * @example
 * toJsonValue({ big: 10n, error: new Error('x') }) // { big: '10', error: { name: 'Error', message: 'x' } }
 */
export function toJsonValue(value: unknown): JsonValue {
  if (value === undefined) return null
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value)
  try {
    return JSON.parse(
      JSON.stringify(value, function (this: Record<string, unknown>, key: string, inner: unknown) {
        // `this[key]` is the value before its own toJSON ran: a Buffer would otherwise arrive as { type, data: [...] }.
        const original = this[key]
        if (original instanceof Uint8Array) return `<${original.byteLength} bytes>`
        if (typeof inner === 'bigint') return inner.toString()
        if (typeof inner === 'number' && !Number.isFinite(inner)) return String(inner)
        if (inner instanceof Error) return { name: inner.name, message: inner.message }
        return inner
      }),
    ) as JsonValue
  } catch {
    return String(value)
  }
}

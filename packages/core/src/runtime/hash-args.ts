// A stable hash of tool arguments (keys sorted), recorded with an approval so the approved call cannot change.
import { createHash } from 'node:crypto'
import type { JsonValue } from '../spec/json.js'

/**
 * The SHA-256 hex digest of the arguments' canonical JSON (object keys sorted), so equal arguments hash equally.
 *
 * @example
 * hashArgs({ b: 1, a: 2 }) === hashArgs({ a: 2, b: 1 }) // true
 */
export function hashArgs(args: JsonValue): string {
  return createHash('sha256').update(canonical(args)).digest('hex')
}

function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  const keys = Object.keys(value).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`).join(',')}}`
}

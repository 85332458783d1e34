// JSON Patch (RFC 6902) between two JSON values: the `delta` of AG-UI's STATE_DELTA. Objects are diffed key by key,
// arrays index by index (elements past the shorter one added or removed from the end), anything else replaced.

/** One RFC 6902 operation, as AG-UI's `StateDeltaEvent.delta` holds them. */
export type JsonPatchOperation = { op: 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string }

/** A JSON Pointer (RFC 6901) token: `~` as `~0`, `/` as `~1`. */
function token(key: string | number): string {
  return typeof key === 'number' ? String(key) : key.replace(/~/g, '~0').replace(/\//g, '~1')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The operations that turn `before` into `after` (both plain JSON: what `JSON.parse` returns). Applying them in order
 * with any RFC 6902 implementation (AG-UI clients use fast-json-patch) yields `after`.
 *
 * @example
 * diffJson({ todos: ['a'] }, { todos: ['a', 'b'] }) // [{ op: 'add', path: '/todos/1', value: 'b' }]
 */
export function diffJson(before: unknown, after: unknown, path = '', out: JsonPatchOperation[] = []): JsonPatchOperation[] {
  if (before === after) return out
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!Object.prototype.hasOwnProperty.call(after, key)) out.push({ op: 'remove', path: `${path}/${token(key)}` })
    }
    for (const key of Object.keys(after)) {
      const at = `${path}/${token(key)}`
      if (!Object.prototype.hasOwnProperty.call(before, key)) out.push({ op: 'add', path: at, value: after[key] })
      else diffJson(before[key], after[key], at, out)
    }
    return out
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length)
    for (let index = 0; index < common; index++) diffJson(before[index], after[index], `${path}/${index}`, out)
    // Removed from the end backwards, so each index is still valid when its operation applies.
    for (let index = before.length - 1; index >= common; index--) out.push({ op: 'remove', path: `${path}/${index}` })
    for (let index = common; index < after.length; index++) out.push({ op: 'add', path: `${path}/${index}`, value: after[index] })
    return out
  }
  out.push({ op: 'replace', path, value: after })
  return out
}

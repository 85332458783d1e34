// Every string sent to the API is well-formed UTF-16. A lone surrogate (an emoji cut in half by a tool, a
// truncated file) is stored as it is, but JSON.stringify writes it as an escape (`"\ud800"`) that APIs refuse
// with a 400, and the same history would then fail every later run of the session: here it becomes U+FFFD.

type UnicodeString = string & { isWellFormed(): boolean; toWellFormed(): string }

/** The text with each lone surrogate replaced by U+FFFD; the same string when it is already well formed. */
export function wellFormedText(text: string): string {
  return (text as UnicodeString).isWellFormed() ? text : (text as UnicodeString).toWellFormed()
}

/**
 * The request parameters with every string well formed, object keys included. Nothing is copied when
 * nothing needs it (the usual case costs one `isWellFormed` per string); otherwise only the changed
 * branches are copied, so the caller's messages are never modified.
 */
export function wellFormed<Value>(value: Value): Value {
  const fixed = fix(value)
  return fixed === unchanged ? value : (fixed as Value)
}

const unchanged = Symbol('unchanged')

function fix(value: unknown): unknown {
  if (typeof value === 'string') return (value as UnicodeString).isWellFormed() ? unchanged : (value as UnicodeString).toWellFormed()
  if (typeof value !== 'object' || value === null) return unchanged
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let index = 0; index < value.length; index++) {
      const fixed = fix(value[index])
      if (fixed === unchanged) continue
      copy ??= value.slice()
      copy[index] = fixed
    }
    return copy ?? unchanged
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return unchanged
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!
    const fixed = fix(record[key])
    if (fixed !== unchanged || !(key as UnicodeString).isWellFormed()) return rebuilt(record, keys, index, fixed)
  }
  return unchanged
}

/** A copy of `record` (keys in order) from the first key that needed a change, whose fixed value is `first`. */
function rebuilt(record: Record<string, unknown>, keys: string[], from: number, first: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!
    const fixed = index < from ? unchanged : index === from ? first : fix(record[key])
    // defineProperty: an own `__proto__` key (JSON.parse makes them) stays a key.
    Object.defineProperty(copy, wellFormedText(key), { value: fixed === unchanged ? record[key] : fixed, enumerable: true, writable: true, configurable: true })
  }
  return copy
}

// A fast deep copy for the plain data stores keep (objects, arrays, primitives, byte arrays): the memory
// stores copy every value in and out, and structuredClone costs several times more for small records.

export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const copy = value.slice()
    for (let i = 0; i < copy.length; i++) {
      const item = copy[i]
      if (item !== null && typeof item === 'object') copy[i] = cloneValue(item)
    }
    return copy as T
  }
  const prototype = Object.getPrototypeOf(value)
  if (prototype === Object.prototype || prototype === null) {
    // A spread copies the fields in one go (V8 clones the source's layout); only nested objects are copied again.
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
    for (const key in copy) {
      const item = copy[key]
      if (item !== null && typeof item === 'object') copy[key] = cloneValue(item)
    }
    return copy as T
  }
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice() as T
  return structuredClone(value)
}

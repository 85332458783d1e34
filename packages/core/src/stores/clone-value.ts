// A fast deep copy for the plain data stores keep (objects, arrays, primitives, byte arrays): the memory
// stores copy every value in and out, and structuredClone costs several times more for small records.

export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const copy = new Array(value.length)
    for (let i = 0; i < value.length; i++) copy[i] = cloneValue(value[i])
    return copy as T
  }
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice() as T
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value)
  const copy: Record<string, unknown> = {}
  for (const key in value as Record<string, unknown>) copy[key] = cloneValue((value as Record<string, unknown>)[key])
  return copy as T
}

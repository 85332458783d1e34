// A thenable check (a tool may return any PromiseLike, not only a native Promise).

/** Whether `value` is a thenable. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function'
}

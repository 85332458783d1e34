// Pagination options as bigint parameters. Callers pass any number (the memory store takes `limit: Infinity`, a
// fractional `before` from `performance.timeOrigin + performance.now()`), but PostgreSQL refuses "Infinity" and
// "2.5" as bigint: each bound is turned into the integer that selects the same rows, or NULL for "no bound".
// NaN selects no rows meaningfully and is rejected (core's rejectNaNListBounds) before any bound is converted.

/** `LIMIT $n`: NULL for no limit (absent or Infinity), otherwise the whole count, at least 0. */
export function limitParameter(limit: number | undefined): number | null {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return null
  return Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(limit)))
}

/** `column > $n` on an integer column: `x > 1.5` is `x > 1`; NULL for no bound (absent or -Infinity). */
export function afterParameter(after: number | undefined): number | null {
  if (after === undefined || after === Number.NEGATIVE_INFINITY) return null
  return clamp(Math.floor(after))
}

/** `column < $n` on an integer column: `x < 2.5` is `x < 3`; NULL for no bound (absent or Infinity). */
export function beforeParameter(before: number | undefined): number | null {
  if (before === undefined || before === Number.POSITIVE_INFINITY) return null
  return clamp(Math.ceil(before))
}

/** Beyond ±2^53 no stored value (seqs, millisecond times) is reached, and bigint cannot parse 1e+300. */
function clamp(value: number): number {
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value))
}

// Arrays filled by index on the hot path of a step.

/**
 * An array of `length` slots to fill by index. An empty array grown by `push` reserves 17 slots on its first push
 * (152 bytes for the one or two items a step's arrays hold); this one is sized once.
 */
export function sizedArray<T>(length: number): T[] {
  // oxlint-disable-next-line unicorn/no-new-array -- the argument is a length, on purpose
  return new Array<T>(length)
}

// Time-ordered identifiers (UUID version 7, RFC 9562) for the keys a durable store indexes on every step.
// A run's journal, events and snapshots are keyed on its id: with random ids (v4) every new run's rows land in
// the middle of those b-trees, whose leaves SQLite keeps nearly full, so an insert there soon rebalances a leaf
// with its siblings and rewrites 3-4 pages. Ids that grow with time put the newest runs at the right edge of each
// index, where a full leaf just gets a new one. Measured on durable SQLite steps: 14.7 WAL pages per step instead of
// 15.6-16.5, and about 10 % less wall time per step (see the package README).
import { randomFillSync } from 'node:crypto'

/** Random bytes for about 64 ids (8 per id, 1 per new millisecond), refilled when used up: one call into the CSPRNG per ~64 ids. */
const pool = new Uint8Array(8 * 64)
let poolOffset = pool.length

/** The 48-bit millisecond timestamp of the last id, and its 12-bit sequence within that millisecond. */
let lastMs = -1
let sequence = 0

const hex: string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then a 12-bit sequence, then 62 random bits.
 * Ids from one process sort (as strings and as bytes) in the order they were made: within a millisecond the
 * sequence counts up from a random start below 2,048; past 4,095 ids in one millisecond, or when the clock goes
 * back, the timestamp field moves on from the last one used instead (RFC 9562, section 6.2). The 62 random bits
 * come from the CSPRNG, so an id cannot be guessed even by someone who knows its millisecond; the id does reveal
 * when it was made, as a record's `createdAt` does. Do not use it as a secret (a capability URL, a token).
 *
 * @example
 * const runId = `run_${timeOrderedId()}` // run_01937c5e-4a7b-7c21-9f3a-5d2e8b1c0a47
 */
export function timeOrderedId(): string {
  let ms = Date.now()
  if (ms > lastMs) {
    lastMs = ms
    sequence = randomByte() << 3 // a random start in 0-2,040 leaves at least 2,055 ids for this millisecond
  } else if (++sequence > 0xfff) {
    // The sequence ran out (or the clock went back and this millisecond's sequence did): the next millisecond.
    lastMs++
    sequence = 0
  }
  ms = lastMs
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const at = poolOffset
  poolOffset += 8
  // 48 bits: the high 32 and the low 16 (JavaScript's bitwise operators work on 32 bits).
  const high = Math.floor(ms / 0x10000)
  const low = ms % 0x10000
  return (
    hex[high >>> 24]! +
    hex[(high >>> 16) & 0xff]! +
    hex[(high >>> 8) & 0xff]! +
    hex[high & 0xff]! +
    '-' +
    hex[low >>> 8]! +
    hex[low & 0xff]! +
    '-' +
    hex[0x70 | (sequence >>> 8)]! +
    hex[sequence & 0xff]! +
    '-' +
    hex[0x80 | (pool[at]! & 0x3f)]! +
    hex[pool[at + 1]!]! +
    '-' +
    hex[pool[at + 2]!]! +
    hex[pool[at + 3]!]! +
    hex[pool[at + 4]!]! +
    hex[pool[at + 5]!]! +
    hex[pool[at + 6]!]! +
    hex[pool[at + 7]!]!
  )
}

function randomByte(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  return pool[poolOffset++]!
}

/** The Unix time in milliseconds that a `timeOrderedId()` carries (its first 48 bits). */
export function timeOrderedIdTime(id: string): number {
  const digits = id.slice(0, 8) + id.slice(9, 13)
  return Number.parseInt(digits, 16)
}

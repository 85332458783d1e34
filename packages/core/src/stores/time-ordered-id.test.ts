import { afterEach, describe, expect, test, vi } from 'vitest'
import { timeOrderedId, timeOrderedIdTime } from './time-ordered-id.js'

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

afterEach(() => {
  vi.restoreAllMocks()
})

describe('timeOrderedId', () => {
  test('is a UUID version 7 with the RFC 9562 variant, carrying the current time', () => {
    const before = Date.now()
    const id = timeOrderedId()
    const after = Date.now()
    expect(id).toMatch(uuidV7)
    expect(timeOrderedIdTime(id)).toBeGreaterThanOrEqual(before)
    expect(timeOrderedIdTime(id)).toBeLessThanOrEqual(after + 1)
  })

  test('ids made one after another sort in the order they were made, and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => timeOrderedId())
    for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(uuidV7)
  })

  test('more than 4,096 ids in one millisecond move the timestamp on instead of wrapping the sequence', () => {
    const frozen = Date.now() + 60_000
    vi.spyOn(Date, 'now').mockReturnValue(frozen)
    const ids = Array.from({ length: 10_000 }, () => timeOrderedId())
    for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true)
    expect(timeOrderedIdTime(ids[0]!)).toBe(frozen)
    // At least 2,055 ids fit in each millisecond (the sequence starts below 2,048): 10,000 need at most 5.
    expect(timeOrderedIdTime(ids.at(-1)!)).toBeGreaterThan(frozen)
    expect(timeOrderedIdTime(ids.at(-1)!)).toBeLessThanOrEqual(frozen + 4)
  })

  test('a clock that goes back does not make ids go back', () => {
    const now = Date.now() + 120_000
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now)
    const first = timeOrderedId()
    clock.mockReturnValue(now - 5_000)
    const second = timeOrderedId()
    expect(second > first).toBe(true)
    expect(timeOrderedIdTime(second)).toBe(now)
    clock.mockReturnValue(now + 1)
    const third = timeOrderedId()
    expect(third > second).toBe(true)
    expect(timeOrderedIdTime(third)).toBe(now + 1)
  })

  test('the 62 random bits differ between ids of the same millisecond', () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 180_000)
    const tails = new Set(Array.from({ length: 1_000 }, () => timeOrderedId().slice(19)))
    expect(tails.size).toBe(1_000)
  })
})

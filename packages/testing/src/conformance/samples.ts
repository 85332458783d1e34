// Shared fixtures of the conformance checks: tricky unicode, entries, time ticks, and the unicode round-trip rules.
import { SpindleError, type SessionEntryInput } from '@spindle/core'
import { expect } from 'vitest'
import { rule } from './rule.js'

/** Strings that break naive stores: NUL, lone surrogates, RTL with bidi controls, emoji sequences, combining marks. */
export const unicodeSamples: Record<string, string> = {
  nul: 'before\u0000after',
  'lone-high-surrogate': 'broken \uD83D here',
  'lone-low-surrogate': '\uDE00 trailing',
  rtl: 'مرحبا بالعالم \u202Eשלום\u202C',
  emoji: '👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽',
  combining: 'e\u0301 Z\u0351\u0359a\u0320l\u0347go',
  'line-separators': 'a\u2028b\u2029c\r\nd',
}

/** A user message entry with `text`. */
export function userEntry(text: string, runId?: string): SessionEntryInput {
  return { kind: 'message', message: { role: 'user', content: text }, ...(runId !== undefined && { runId }) }
}

/** Waits until `Date.now()` has moved on, so timestamps of consecutive writes differ. */
export async function tick(): Promise<void> {
  const start = Date.now()
  while (Date.now() <= start + 1) await new Promise((resolve) => setTimeout(resolve, 1))
}

/**
 * The unicode rule: a value holding `sample` is either stored and read back exactly, or refused with a
 * `StoreError` (code "store") — and the same write gets the same outcome every time. Returns the outcome.
 */
export async function unicodeOutcome(
  sample: string,
  write: () => Promise<unknown>,
  readBack: () => Promise<unknown>,
  expected: unknown,
): Promise<'exact' | 'rejected'> {
  const attempt = async (): Promise<'exact' | 'rejected'> => {
    try {
      await write()
    } catch (error) {
      if (SpindleError.isInstance(error) && error.code === 'store') return 'rejected'
      throw new Error(
        `writing ${JSON.stringify(sample)} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} instead of a StoreError`,
        { cause: error },
      )
    }
    expect(await readBack(), `value holding ${JSON.stringify(sample)} read back changed`).toEqual(expected)
    return 'exact'
  }
  const first = await attempt()
  const second = await attempt()
  expect(second, `writing ${JSON.stringify(sample)} twice gave two outcomes`).toBe(first)
  return first
}

/** Fix text for the unicode rule, shared by every store. */
export const unicodeFix =
  'store strings losslessly (bind them as parameters, use a UTF-8/UTF-16 safe column type) or, when the backend cannot hold a character (e.g. NUL or lone surrogates in PostgreSQL text/jsonb), detect it and throw StoreError before writing — never replace characters silently'

/** Fix text for JSON values holding those strings: stored exactly, never refused. */
export const unicodeJsonFix =
  'JSON values (messages, tool arguments and results, events, run state, metadata) hold whatever models and tools produce — a tool’s binary output with NUL, an emoji split across two text deltas — and a refused write leaves the run stuck: store them exactly. JSON.stringify into a text column keeps every code unit (it escapes NUL and lone surrogates); where the backend cannot hold a character (PostgreSQL jsonb refuses \\u0000 and unpaired surrogates), escape those strings on write and restore them on read'

/** The JSON rule: a JSON value holding `sample` must have been stored and read back exactly (not refused). */
export async function expectExactJson(id: string, sample: string, outcome: 'exact' | 'rejected'): Promise<void> {
  await rule(id, unicodeJsonFix, () => {
    expect(outcome, `a JSON value holding ${JSON.stringify(sample)} was refused`).toBe('exact')
  })
}

/** Collects an async iterable. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

/** Byte equality that stays fast on megabytes and names the first differing offset. */
export function expectBytes(actual: Uint8Array, expected: Uint8Array, what = 'bytes'): void {
  if (Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength))) return
  let index = 0
  while (index < Math.min(actual.byteLength, expected.byteLength) && actual[index] === expected[index]) index++
  throw new Error(`${what} differ: expected ${expected.byteLength} bytes, got ${actual.byteLength}; first difference at offset ${index}`)
}

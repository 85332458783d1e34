// The memory stores' site-specific copies must be the same deep copy as cloneValue: equal values, nothing shared.
import { describe, expect, it } from 'vitest'
import type { SessionEntryInput } from '../../spec/session-store.js'
import type { RunSnapshot } from '../../spec/snapshot-store.js'
import { cloneValue } from '../clone-value.js'
import { copySnapshot, frozenCopy, storedEntries } from './memory-copies.js'
import { MemorySessionStore } from './memory-session-store.js'

/** Every object and array reachable from `value`, with its path. */
function objectsIn(value: unknown, path = '$', found: Array<[string, object]> = []): Array<[string, object]> {
  if (value === null || typeof value !== 'object') return found
  found.push([path, value])
  if (ArrayBuffer.isView(value)) return found
  for (const [key, item] of Object.entries(value)) objectsIn(item, `${path}.${key}`, found)
  return found
}

/** Asserts that `copy` equals `source` and shares none of its objects (at any depth). */
function expectDeepCopy(copy: unknown, source: unknown): void {
  expect(copy).toEqual(source)
  expect(copy).toEqual(cloneValue(source))
  const sourceObjects = new Set(objectsIn(source).map(([, object]) => object))
  for (const [path, object] of objectsIn(copy)) expect(sourceObjects.has(object), `${path} is shared with the source`).toBe(false)
}

describe('memory store copies', () => {
  it('copySnapshot copies a snapshot at every depth, extra fields and non-plain values included', () => {
    const state = Object.assign(Object.create(null) as Record<string, unknown>, { nested: { deep: [1, { x: 2 }] } })
    const snapshots: RunSnapshot[] = [
      {
        runId: 'r',
        sessionId: 's',
        version: 3,
        createdAt: 1,
        state: {
          step: 3,
          usage: { inputTokens: 1, outputTokens: 2 },
          pending: [{ callId: 'c', toolName: 't', args: { q: ['a', { b: null }] } }],
          error: { code: 'e', message: 'm' },
        },
      },
      { runId: 'r', sessionId: 's', version: 4, createdAt: 2, state: state as never, ...({ extra: { kept: [true] } } as object) },
      { runId: 'r', sessionId: 's', version: 5, createdAt: 3, state: { bytes: new Uint8Array([1, 2]) as never, when: new Date(5) as never } },
    ]
    for (const snapshot of snapshots) expectDeepCopy(copySnapshot(snapshot), snapshot)
    const bytes = (snapshots[2]!.state as unknown as { bytes: Uint8Array }).bytes
    const copied = copySnapshot(snapshots[2]!)
    bytes[0] = 9
    expect([...(copied.state as unknown as { bytes: Uint8Array }).bytes]).toEqual([1, 2])
  })

  it('storedEntries builds each entry on a copy of its message or compaction, parts copied at every depth', () => {
    const entries: SessionEntryInput[] = [
      { kind: 'message', message: { role: 'user', content: 'hi' }, runId: 'r' },
      {
        kind: 'message',
        message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'file', mediaType: 'image/png', data: new Uint8Array([7]) } as never] },
      },
      {
        kind: 'message',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool-call', toolCallId: 'c', toolName: 't', args: { q: { deep: ['x'] } } },
          ],
        },
      },
      {
        kind: 'message',
        message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', result: { rows: [{ id: 1 }] }, isError: false }] },
      },
      { kind: 'compaction', compaction: { summary: 'earlier', throughSeq: 4 } as never, runId: 'r' },
      {
        kind: 'message',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'x', providerOptions: { cache: { ttl: 5 } } } as never],
          ...({ metadata: { tags: ['t'] } } as object),
        },
      },
    ]
    const stored = storedEntries(entries, 's', 7, 1234)
    expect(stored.map(({ kind, runId, sessionId, seq, createdAt }) => ({ kind, runId, sessionId, seq, createdAt }))).toEqual(
      entries.map((entry, index) => ({ kind: entry.kind, runId: entry.runId, sessionId: 's', seq: 7 + index, createdAt: 1234 })),
    )
    expectDeepCopy(
      stored.map((entry) => (entry.kind === 'message' ? entry.message : entry.compaction)),
      entries.map((entry) => (entry.kind === 'message' ? entry.message : entry.compaction)),
    )
  })

  it('frozenCopy copies plain data at every depth and freezes every level; storedEntries freezes an entry only when all of it froze', () => {
    const plain = { a: [1, { b: 'x' }], c: { d: null }, ...JSON.parse('{"__proto__": {"e": 1}}') }
    const copy = frozenCopy(plain)
    expectDeepCopy(copy, plain)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    for (const [path, object] of objectsIn(copy)) expect(Object.isFrozen(object), path).toBe(true)
    const message = (content: unknown) => ({ kind: 'message', message: { role: 'user', content } }) as SessionEntryInput
    const stored = storedEntries(
      [message('plain'), message([{ type: 'file', data: new Uint8Array([1]) }]), message([{ type: 'text', text: 'x', when: new Date(1) }])],
      's',
      1,
      1,
    )
    expect(stored.map((entry) => Object.isFrozen(entry))).toEqual([true, false, false])
  })

  it('listEntries hands out frozen entries shared, and copies of entries holding a byte array: no read lets a caller change the log', async () => {
    const sessions = new MemorySessionStore()
    await sessions.createSession({ id: 's' })
    const bytes = { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: new Uint8Array([7]) }] } as never
    await sessions.append('s', [
      { kind: 'message', message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', args: { q: ['x'] } }] } },
      { kind: 'message', message: bytes },
    ])
    const [shared, copied] = await sessions.listEntries('s')
    const [sharedAgain, copiedAgain] = await sessions.listEntries('s')
    // The plain entry: the same frozen object each read, every depth frozen.
    expect(sharedAgain).toBe(shared)
    for (const [path, object] of objectsIn(shared)) expect(Object.isFrozen(object), path).toBe(true)
    // The byte array's entry: a new deep copy each read, which its caller may change.
    expect(copiedAgain).not.toBe(copied)
    const bytesOf = (entry: unknown) => (entry as { message: { content: Array<{ data: Uint8Array }> } }).message.content[0]!.data
    bytesOf(copied)[0] = 9
    expect(bytesOf(copiedAgain)[0]).toBe(7)
    expect([...bytesOf((await sessions.listEntries('s'))[1])]).toEqual([7])
  })
})

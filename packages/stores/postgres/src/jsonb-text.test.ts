// Strings PostgreSQL cannot hold (U+0000, unpaired surrogates) survive a round trip through jsonb and text, on the
// real server; keys holding them are refused before anything is written.
import { StoreError } from '@spindle/core'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { assertKey, fromJsonb, fromText, toJsonbText, toText } from './jsonb-text.js'
import { postgresStores } from './postgres-stores.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const schema = randomSchemaName()
afterAll(() => dropSchema(schema))

/** Every string PostgreSQL refuses or changes, the marker, and backslashes that look like the escapes. */
const tricky = [
  'a\u0000b',
  'high \uD83D alone',
  '\uDE00 low alone',
  'halves \uDE00\uD83D reversed',
  '\uFDD0starts with the marker',
  'x\u0000y\\0\\u0000\\\\',
  '😀 paired is fine',
]

describe('jsonb text escaping', () => {
  it('leaves ordinary values as JSON.stringify writes them, and reads them back as the same objects', () => {
    const value = { text: 'plain \\ text with 😀 and \uFDD0 inside', list: [1, null, true, { nested: 'ü€' }], '\\u0000': 'a literal backslash-u' }
    expect(toJsonbText(value)).toBe(JSON.stringify(value))
    const parsed = JSON.parse(JSON.stringify(value)) as typeof value
    expect(fromJsonb(parsed)).toBe(parsed)
    expect(fromJsonb(parsed)).toEqual(value)
    expect(toText('title')).toBe('title')
  })

  it('escapes strings and keys that need it, keeping JSON.stringify semantics (toJSON, undefined members, __proto__ keys)', () => {
    const when = new Date(1_700_000_000_000)
    const value = JSON.parse('{"__proto__":"\\u0000proto"}') as Record<string, unknown>
    Object.assign(value, { when, skipped: undefined, ['key\u0000']: ['\uD83D'] })
    const text = toJsonbText(value)
    const strings: string[] = []
    JSON.parse(text, (key, item: unknown) => (strings.push(key, typeof item === 'string' ? item : ''), item))
    expect(
      strings.filter((string) => string.includes('\u0000') || /[\uD800-\uDFFF]/u.test(string)),
      'what jsonb would refuse',
    ).toEqual([])
    expect(fromJsonb(JSON.parse(text))).toEqual(JSON.parse(JSON.stringify(value)))
    expect(Object.keys(fromJsonb(JSON.parse(text)) as object)).toEqual(expect.arrayContaining(['__proto__', 'when', 'key\u0000']))
  })

  it('reads back strings escaped by the earlier format (U+0000 and backslashes only)', () => {
    expect(fromJsonb({ a: '\uFDD0x\\0y\\\\0' })).toEqual({ a: 'x\u0000y\\0' })
  })

  it('refuses keys holding U+0000 or an unpaired surrogate with a StoreError', () => {
    expect(() => assertKey('s\u0000', 'session id')).toThrow(StoreError)
    expect(() => assertKey('\uDE00', 'run id')).toThrow(/run id "\\ude00" holds U\+0000 or an unpaired UTF-16 surrogate/)
    expect(() => assertKey('emoji 😀 \uFDD0', 'run id')).not.toThrow()
  })
})

describePostgres('jsonb and text with U+0000 and unpaired surrogates', () => {
  it('round-trip through jsonb and text parameters of the real server', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl })
    try {
      const value = Object.fromEntries(tricky.map((text, index) => [`${text} ${index}`, [text, { nested: text }, index]]))
      const { rows } = await pool.query<{ value: unknown }>('SELECT $1::jsonb AS value', [toJsonbText(value)])
      expect(fromJsonb(rows[0]!.value)).toEqual(value)
      for (const text of tricky) {
        const { rows: texts } = await pool.query<{ text: string }>('SELECT $1::text AS text', [toText(text)])
        expect(fromText(texts[0]!.text)).toBe(text)
      }
      await expect(pool.query('SELECT $1::jsonb', [JSON.stringify({ a: 'a\u0000b' })])).rejects.toThrow(/Unicode escape/)
      await expect(pool.query('SELECT $1::jsonb', [JSON.stringify({ a: '\uD83D' })])).rejects.toThrow(/invalid input syntax for type json/)
    } finally {
      await pool.end()
    }
  })

  it('a snapshot whose state holds U+0000 (the doom-loop signature) is saved and read back', async () => {
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    try {
      await stores.migrate()
      const state = { signatures: ['lookup\u0000{"q":1}\u0001'], step: 2 }
      await stores.snapshots.save({ runId: 'r1', sessionId: 's1', version: 1, state, createdAt: 1 })
      expect((await stores.snapshots.latest('r1'))?.state).toEqual(state)
    } finally {
      await stores.close()
    }
  })

  it('free text (titles, contents, names, tool-call ids) is stored escaped; ids holding U+0000 or a lone surrogate are refused and nothing is written', async () => {
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    try {
      await stores.migrate()
      const title = 'title \u0000 \uD83D'
      const session = await stores.sessions.createSession({ id: 'free-text', title })
      expect(session.title).toBe(title)
      expect((await stores.sessions.updateSession('free-text', { title: `${title}!` })).title).toBe(`${title}!`)
      const callId = 'call \u0000 \uDE00'
      const { record } = await stores.executions.start({ key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'echo', args: {} })
      expect([record.key, record.callId]).toEqual([`r:1:${callId}`, callId])
      expect((await stores.executions.finish(`r:1:${callId}`, { status: 'succeeded', result: 1 })).status).toBe('succeeded')
      expect((await stores.executions.start({ key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'echo', args: {} })).created).toBe(false)
      await stores.embeddings.upsert([{ id: 'e', vector: [1, 0], content: 'content \u0000', metadata: { tag: '\uD83D' } }])
      expect(await stores.embeddings.get('e')).toMatchObject({ content: 'content \u0000', metadata: { tag: '\uD83D' } })
      expect((await stores.embeddings.query({ vector: [1, 0], topK: 1, filter: { tag: '\uD83D' } })).map((match) => match.id)).toEqual(['e'])
      expect(await stores.artifacts.put('bytes', { name: 'name \u0000' })).toMatchObject({ name: 'name \u0000' })

      const refusals: Array<[string, () => Promise<unknown>]> = [
        ['session id', () => stores.sessions.createSession({ id: 'bad\u0000' })],
        ['session resourceId', () => stores.sessions.createSession({ id: 'ok', resourceId: '\uD83D' })],
        ['run id', () => stores.runs.createRun({ id: 'run\uDE00', sessionId: 's', request: {} })],
        ['entry runId', () => stores.sessions.append('free-text', [{ kind: 'message', message: { role: 'user', content: 'x' }, runId: 'r\u0000' }])],
        [
          'event runId',
          () => stores.runs.appendEvents('r\u0000', [{ type: 'text.delta', runId: 'r\u0000', sessionId: 's', seq: 1, timestamp: 1, step: 1, delta: 'x' }]),
        ],
        ['snapshot runId', () => stores.snapshots.save({ runId: 'r\uD83D', sessionId: 's', version: 1, state: {}, createdAt: 1 })],
        ['embedding namespace', () => stores.embeddings.upsert([{ id: 'n', vector: [1, 0], namespace: 'n\u0000' }])],
      ]
      for (const [what, refused] of refusals) {
        const error = await refused().catch((caught: unknown) => caught)
        expect(error, what).toBeInstanceOf(StoreError)
        expect((error as StoreError).message, what).toMatch(
          new RegExp(`^\\[spindle/store-postgres\\] ${what} .* holds U\\+0000 or an unpaired UTF-16 surrogate`),
        )
      }
      expect(await stores.sessions.getSession('ok')).toBeUndefined()
      expect((await stores.sessions.getSession('free-text'))?.lastSeq).toBe(0)
      expect(await stores.embeddings.get('n')).toBeUndefined()
    } finally {
      await stores.close()
    }
  })
})

// Runs every @spindle/testing store conformance suite against real SQLite files (one fresh file per store).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeStores } from '@spindle/testing'
import { afterAll } from 'vitest'
import { sqliteStores, type SqliteStores } from './index.js'

const directory = mkdtempSync(join(tmpdir(), 'spindle-sqlite-conformance-'))
let counter = 0
afterAll(() => rmSync(directory, { recursive: true, force: true }))

describeStores('store-sqlite', {
  create: () => sqliteStores({ path: join(directory, `stores-${++counter}.db`) }),
  createSecondConnection: async (stores) => sqliteStores({ path: (stores as SqliteStores).database.name }),
  cleanup: (stores) => (stores as SqliteStores).close(),
})

// The same suites with the JavaScript scorer, so the fallback path (no sqlite-vec) stays conformant too.
describeStores('store-sqlite (exact vector scan)', {
  create: () => sqliteStores({ path: join(directory, `stores-${++counter}.db`), vectorSearch: 'exact' }),
  cleanup: (stores) => (stores as SqliteStores).close(),
})

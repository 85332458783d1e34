// Runs every @spindle/testing store conformance suite against real SQLite files (one fresh file per store).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeEmbeddingStore, describeStoreBatch, describeStores } from '@spindle/testing'
import { afterAll } from 'vitest'
import { sqliteStores, type SqliteStores } from './index.js'

const directory = mkdtempSync(join(tmpdir(), 'spindle-sqlite-conformance-'))
let counter = 0
const opened = new Map<unknown, SqliteStores>()
afterAll(() => rmSync(directory, { recursive: true, force: true }))

describeStores('store-sqlite', {
  create: () => sqliteStores({ path: join(directory, `stores-${++counter}.db`) }),
  // A second sqliteStores on the same file: its own better-sqlite3 connection.
  createSecondConnection: (stores) => sqliteStores({ path: stores.database.name }),
  cleanup: (stores) => stores.close(),
})

// The embedding suite again with the JavaScript scorer, so the path used where sqlite-vec cannot load stays conformant.
describeEmbeddingStore('store-sqlite (exact vector scan, no sqlite-vec)', {
  create: () => {
    const stores = sqliteStores({ path: join(directory, `stores-${++counter}.db`), vectorSearch: 'exact' })
    opened.set(stores.embeddings, stores)
    return stores.embeddings
  },
  cleanup: (embeddings) => opened.get(embeddings)?.close(),
})

// The StoreBatch suite on a file (with a second connection) and on :memory:.
describeStoreBatch('store-sqlite (file)', {
  create: () => sqliteStores({ path: join(directory, `stores-${++counter}.db`) }),
  createSecondConnection: async (stores) => sqliteStores({ path: (stores as SqliteStores).database.name }),
  cleanup: (stores) => (stores as SqliteStores).close(),
})

describeStoreBatch('store-sqlite (:memory:)', {
  create: () => sqliteStores({ path: ':memory:' }),
  cleanup: (stores) => (stores as SqliteStores).close(),
})

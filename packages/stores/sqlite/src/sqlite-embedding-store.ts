// SQLite EmbeddingStore: Float32 BLOB vectors, one dimension per namespace, exact cosine top-k with metadata filters.
import {
  StoreError,
  type EmbeddingMatch,
  type EmbeddingQuery,
  type EmbeddingRecord,
  type EmbeddingStore,
  type JsonObject,
  type JsonPrimitive,
} from '@spindle/core'
import type BetterSqlite3 from 'better-sqlite3'
import { withSqliteErrors } from './map-sqlite-error.js'
import { StatementCache } from './statement-cache.js'
import { assertKey, fromJsonObject, fromJsonText, isWellFormed, toJsonText } from './sqlite-values.js'
import { asFloat32, cosineSimilarity, installVectorSearch, toFloat32Blob, type VectorSearchMode } from './vector-search.js'

interface EmbeddingRow {
  id: string
  namespace: string | null
  vector: Buffer
  content: string | null
  metadata: string
}

/**
 * SQL ranks by a float32 score and returns this many candidates beyond `topK`; they are then re-scored in
 * double precision, so near-ties are ordered exactly as the in-memory store orders them.
 */
const rescoreMargin = 32

/** Options of `SqliteEmbeddingStore`: how similarity search runs (`sqlite-vec` when it loads, or exact in JavaScript). */
export interface SqliteEmbeddingStoreOptions {
  /** `auto` (default) uses sqlite-vec when it loads, else the exact JavaScript scorer. */
  vectorSearch?: 'auto' | VectorSearchMode
}

/**
 * Embeddings in SQLite. A query without `namespace` searches the records stored without one. Vectors are stored
 * as Float32 (like pgvector's `vector`), so values read back are float32-rounded.
 *
 * @example
 * const embeddings = new SqliteEmbeddingStore(database)
 * await embeddings.upsert([{ id: 'a', vector: [1, 0], metadata: { lang: 'en' } }])
 * const [best] = await embeddings.query({ vector: [1, 0.1], topK: 1, filter: { lang: 'en' } })
 */
export class SqliteEmbeddingStore implements EmbeddingStore {
  readonly specificationVersion = 'v1' as const
  /** Which scorer ranks candidates on this connection. */
  readonly vectorSearch: VectorSearchMode
  readonly #database: BetterSqlite3.Database
  readonly #sql: StatementCache
  readonly #scoreSql: string

  constructor(database: BetterSqlite3.Database, options: SqliteEmbeddingStoreOptions = {}) {
    this.#database = database
    this.#sql = new StatementCache(database)
    const search = installVectorSearch(database, options.vectorSearch ?? 'auto')
    this.vectorSearch = search.mode
    this.#scoreSql = search.scoreSql
  }

  async upsert(records: Array<Omit<EmbeddingRecord, 'metadata'> & { metadata?: JsonObject }>): Promise<void> {
    const prepared = records.map((record) => {
      assertKey(record.id, 'Embedding id')
      if (record.namespace !== undefined) assertKey(record.namespace, 'Embedding namespace')
      if (!Array.isArray(record.vector) || record.vector.length === 0 || !record.vector.every(Number.isFinite)) {
        throw new StoreError(`[spindle/store-sqlite] Embedding "${record.id}" needs a non-empty vector of finite numbers`)
      }
      return {
        id: record.id,
        namespace: record.namespace ?? null,
        dimension: record.vector.length,
        vector: toFloat32Blob(record.vector),
        content: record.content === undefined ? null : toJsonText(record.content),
        metadata: toJsonText(record.metadata ?? {}),
      }
    })
    withSqliteErrors('upsert embeddings', () =>
      // One transaction: a dimension mismatch anywhere rolls back the whole batch.
      this.#database
        .transaction(() => {
          for (const record of prepared) {
            this.#sql.get('DELETE FROM embeddings WHERE id = ?').run(record.id)
            const expected = this.#dimension(record.namespace)
            if (expected !== undefined && expected !== record.dimension) {
              throw new StoreError(
                `[spindle/store-sqlite] Embedding "${record.id}" has ${record.dimension} dimensions but namespace ${describe(record.namespace)} holds ${expected}; embed with the same model or use another namespace`,
              )
            }
            this.#sql
              .get('INSERT INTO embeddings (id, namespace, dimension, vector, content, metadata) VALUES (?, ?, ?, ?, ?, ?)')
              .run(record.id, record.namespace, record.dimension, record.vector, record.content, record.metadata)
          }
        })
        .immediate(),
    )
  }

  async query(query: EmbeddingQuery): Promise<EmbeddingMatch[]> {
    if (!(query.topK > 0)) return []
    // Infinity (every match) would bind as a REAL limit, which SQLite refuses: the namespace's size bounds it anyway.
    const topK = Math.min(Number.MAX_SAFE_INTEGER - rescoreMargin, Math.floor(query.topK))
    if (query.namespace !== undefined) assertKey(query.namespace, 'Query namespace')
    const namespace = query.namespace ?? null
    return withSqliteErrors('query embeddings', () => {
      const dimension = this.#dimension(namespace)
      if (dimension === undefined) return []
      if (dimension !== query.vector.length) {
        throw new StoreError(
          `[spindle/store-sqlite] Query vector has ${query.vector.length} dimensions but namespace ${describe(namespace)} holds ${dimension}; embed the query with the same model`,
        )
      }
      const filterSql = buildFilterSql(query.filter)
      let candidates: EmbeddingRow[]
      if (filterSql === undefined) {
        // A filter SQLite cannot compare exactly (a lone surrogate): scan the namespace and filter here.
        const rows = this.#sql.get('SELECT id, namespace, vector, content, metadata FROM embeddings WHERE namespace IS ?').all(namespace) as EmbeddingRow[]
        candidates = rows.filter((row) => matchesFilter(fromJsonObject(row.metadata), query.filter))
      } else {
        candidates = this.#sql
          .get(
            `SELECT id, namespace, vector, content, metadata, ${this.#scoreSql} AS score FROM embeddings
             WHERE namespace IS ? ${filterSql.sql} ORDER BY score DESC, id ASC LIMIT ?`,
          )
          .all(toFloat32Blob(query.vector), namespace, ...filterSql.parameters, topK + rescoreMargin) as EmbeddingRow[]
      }
      const matches: EmbeddingMatch[] = []
      for (const row of candidates) {
        const vector = asFloat32(row.vector)
        const score = cosineSimilarity(query.vector, vector)
        if (query.minScore !== undefined && score < query.minScore) continue
        matches.push({ ...toRecord(row, vector), score })
      }
      matches.sort((a, b) => (a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      return matches.slice(0, topK)
    })
  }

  async get(id: string): Promise<EmbeddingRecord | undefined> {
    return withSqliteErrors(`read embedding "${id}"`, () => {
      const row = this.#sql.get('SELECT id, namespace, vector, content, metadata FROM embeddings WHERE id = ?').get(id) as EmbeddingRow | undefined
      return row === undefined ? undefined : toRecord(row, asFloat32(row.vector))
    })
  }

  async delete(ids: string[]): Promise<void> {
    withSqliteErrors('delete embeddings', () =>
      this.#database
        .transaction(() => {
          const statement = this.#sql.get('DELETE FROM embeddings WHERE id = ?')
          for (const id of ids) statement.run(id)
        })
        .immediate(),
    )
  }

  async deleteNamespace(namespace: string): Promise<void> {
    withSqliteErrors(`delete embedding namespace "${namespace}"`, () => {
      this.#sql.get('DELETE FROM embeddings WHERE namespace = ?').run(namespace)
    })
  }

  /** The namespace's dimension, from any one of its rows (an index lookup), or undefined when it is empty. */
  #dimension(namespace: string | null): number | undefined {
    const row = this.#sql.get('SELECT dimension FROM embeddings WHERE namespace IS ? LIMIT 1').get(namespace) as { dimension: number } | undefined
    return row?.dimension
  }
}

function describe(namespace: string | null): string {
  return namespace === null ? '(default)' : `"${namespace}"`
}

function toRecord(row: EmbeddingRow, vector: Float32Array): EmbeddingRecord {
  return {
    id: row.id,
    vector: Array.from(vector),
    ...(row.content !== null && { content: fromJsonText<string>(row.content) }),
    ...(row.namespace !== null && { namespace: row.namespace }),
    metadata: fromJsonObject(row.metadata),
  }
}

/**
 * SQL for `filter`: each key must exist at the top level of the metadata with an equal value of the same JSON
 * type (or one of an array's items). Undefined when a key or string is not well-formed Unicode, since SQLite's
 * UTF-8 cannot compare it exactly.
 */
function buildFilterSql(filter: EmbeddingQuery['filter']): { sql: string; parameters: unknown[] } | undefined {
  if (filter === undefined) return { sql: '', parameters: [] }
  let sql = ''
  const parameters: unknown[] = []
  for (const [key, expected] of Object.entries(filter)) {
    if (!isWellFormed(key)) return undefined
    const alternatives: string[] = []
    parameters.push(key)
    for (const value of Array.isArray(expected) ? expected : [expected]) {
      const condition = primitiveCondition(value)
      if (condition === undefined) return undefined
      alternatives.push(condition.sql)
      parameters.push(...condition.parameters)
    }
    sql += ` AND EXISTS (SELECT 1 FROM json_each(embeddings.metadata) AS j WHERE j.key = ? AND (${alternatives.join(' OR ') || '0'}))`
  }
  return { sql, parameters }
}

function primitiveCondition(value: JsonPrimitive): { sql: string; parameters: unknown[] } | undefined {
  if (value === null) return { sql: "j.type = 'null'", parameters: [] }
  if (value === true) return { sql: "j.type = 'true'", parameters: [] }
  if (value === false) return { sql: "j.type = 'false'", parameters: [] }
  if (typeof value === 'number') return { sql: "(j.type IN ('integer', 'real') AND j.atom = ?)", parameters: [value] }
  if (typeof value === 'string') return isWellFormed(value) ? { sql: "(j.type = 'text' AND j.atom = ?)", parameters: [value] } : undefined
  return { sql: '0', parameters: [] }
}

function matchesFilter(metadata: JsonObject, filter: EmbeddingQuery['filter']): boolean {
  if (filter === undefined) return true
  for (const [key, expected] of Object.entries(filter)) {
    if (!Object.hasOwn(metadata, key)) return false
    const actual = metadata[key]
    if (Array.isArray(expected) ? !expected.some((item) => item === actual) : actual !== expected) return false
  }
  return true
}

// EmbeddingStore on PostgreSQL: exact cosine scan over `float8[]`, or pgvector's HNSW index when the extension is there.
import { type EmbeddingMatch, type EmbeddingQuery, type EmbeddingRecord, type EmbeddingStore, type JsonObject, StoreError } from '@spindle/core'
import { assertKey, fromJsonb, fromText, toJsonbText, toText } from './jsonb-text.js'
import { mapPostgresError, sqlState } from './map-postgres-error.js'
import type { PgvectorSupport } from './pgvector.js'
import type { SqlDatabase } from './sql-database.js'
import { limitParameter } from './list-bounds.js'

interface EmbeddingRow {
  id: string
  namespace: string | null
  vector: number[]
  content: string | null
  metadata: JsonObject
  score?: number
}

/** pgvector's HNSW index handles at most this many dimensions for the `vector` type. */
const hnswMaxDimensions = 2000

/**
 * A query without `namespace` searches the records stored without one (as the in-memory store does).
 * With pgvector, an unfiltered query walks the HNSW index (approximate); a filtered one scans exactly.
 *
 * @example
 * const embeddings = new PostgresEmbeddingStore(poolDatabase(pool), '"spindle"', 'spindle', () => undefined)
 * await embeddings.upsert([{ id: 'a', vector: [1, 0] }])
 */
export class PostgresEmbeddingStore implements EmbeddingStore {
  readonly specificationVersion = 'v1' as const
  readonly #database: SqlDatabase
  readonly #s: string
  readonly #schemaName: string
  readonly #pgvector: () => PgvectorSupport | undefined
  readonly #indexedDimensions = new Set<number>()

  /** `pgvector` returns the detected support once migrations ran (undefined: exact scan only). */
  constructor(database: SqlDatabase, schema: string, schemaName: string, pgvector: () => PgvectorSupport | undefined) {
    this.#database = database
    this.#s = schema
    this.#schemaName = schemaName
    this.#pgvector = pgvector
  }

  async upsert(records: Array<Omit<EmbeddingRecord, 'metadata'> & { metadata?: JsonObject }>): Promise<void> {
    if (records.length === 0) return
    const batchDimensions = new Map<string | null, number>()
    for (const record of records) {
      if (!Array.isArray(record.vector) || record.vector.length === 0 || !record.vector.every(Number.isFinite)) {
        throw new StoreError(`[spindle/store-postgres] embedding "${record.id}" needs a non-empty vector of finite numbers`)
      }
      assertKey(record.id, 'embedding id')
      if (record.namespace !== undefined) assertKey(record.namespace, 'embedding namespace')
      const namespace = record.namespace ?? null
      const expected = batchDimensions.get(namespace)
      if (expected !== undefined && expected !== record.vector.length) throw dimensionError(record.id, record.vector.length, namespace, expected)
      batchDimensions.set(namespace, record.vector.length)
    }
    const pgvector = this.#pgvector()
    const ids = records.map((record) => record.id)
    try {
      await this.#database.transaction(async (transaction) => {
        for (const [namespace, dimensions] of batchDimensions) {
          // Serializes writers of one namespace, so two first writers cannot pick different dimensions.
          await transaction.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spindle:embeddings:${this.#schemaName}:${namespace ?? ''}`])
          const { rows } = await transaction.query<{ id: string; dimensions: number }>(
            `SELECT id, dimensions FROM ${this.#s}.embeddings WHERE namespace IS NOT DISTINCT FROM $1 AND NOT (id = ANY($2::text[])) LIMIT 1`,
            [namespace, ids],
          )
          if (rows[0] !== undefined && Number(rows[0].dimensions) !== dimensions) {
            const offender = records.find((record) => (record.namespace ?? null) === namespace)!
            throw dimensionError(offender.id, dimensions, namespace, Number(rows[0].dimensions))
          }
        }
        for (const record of records) {
          const norm = Math.sqrt(record.vector.reduce((sum, x) => sum + x * x, 0))
          const values: unknown[] = [
            record.id,
            record.namespace ?? null,
            record.vector.length,
            record.vector,
            norm,
            toText(record.content ?? null),
            toJsonbText(record.metadata ?? {}),
          ]
          const vectorColumn = pgvector === undefined ? '' : ', embedding'
          const vectorValue = pgvector === undefined ? '' : `, $8::${pgvector.type}`
          if (pgvector !== undefined) values.push(toVectorLiteral(record.vector))
          await transaction.query(
            `INSERT INTO ${this.#s}.embeddings (id, namespace, dimensions, vector, norm, content, metadata${vectorColumn})
             VALUES ($1, $2, $3, $4::float8[], $5, $6, $7::jsonb${vectorValue})
             ON CONFLICT (id) DO UPDATE SET namespace = EXCLUDED.namespace, dimensions = EXCLUDED.dimensions, vector = EXCLUDED.vector,
               norm = EXCLUDED.norm, content = EXCLUDED.content, metadata = EXCLUDED.metadata${pgvector === undefined ? '' : ', embedding = EXCLUDED.embedding'}`,
            values,
          )
        }
      })
    } catch (error) {
      throw mapPostgresError(error, `upserting ${records.length} embedding(s)`)
    }
    if (pgvector !== undefined) for (const dimensions of new Set(batchDimensions.values())) await this.#ensureIndex(pgvector, dimensions)
  }

  async query(query: EmbeddingQuery): Promise<EmbeddingMatch[]> {
    if (!(query.topK > 0)) return []
    const namespace = query.namespace ?? null
    try {
      const { rows: held } = await this.#database.query<{ dimensions: number }>(
        `SELECT dimensions FROM ${this.#s}.embeddings WHERE namespace IS NOT DISTINCT FROM $1 LIMIT 1`,
        [namespace],
      )
      if (held[0] === undefined) return []
      const dimensions = Number(held[0].dimensions)
      if (dimensions !== query.vector.length) {
        throw new StoreError(
          `[spindle/store-postgres] query vector has ${query.vector.length} dimensions but namespace ${describe(namespace)} holds ${dimensions}; embed the query with the same model`,
        )
      }
      const values: unknown[] = [namespace, dimensions, limitParameter(query.topK), query.minScore ?? null]
      const filters = filterClauses(query.filter, values)
      const pgvector = this.#pgvector()
      const rows =
        pgvector !== undefined && filters.length === 0 && dimensions <= hnswMaxDimensions && query.vector.some((x) => x !== 0)
          ? await this.#approximate(pgvector, query.vector, values)
          : await this.#exact(query.vector, values, filters)
      return rows.map((row) => ({ ...toRecord(row), score: Math.max(-1, Math.min(1, Number(row.score))) }))
    } catch (error) {
      throw mapPostgresError(error, 'querying embeddings')
    }
  }

  /** Exact cosine over every candidate row: the path without pgvector, and for filtered queries. */
  async #exact(vector: number[], values: unknown[], filters: string[]): Promise<EmbeddingRow[]> {
    const queryNorm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
    values.push(vector, queryNorm)
    const q = `$${values.length - 1}::float8[]`
    const qn = `$${values.length}::float8`
    const { rows } = await this.#database.query<EmbeddingRow>(
      `SELECT * FROM (
         SELECT id, namespace, vector, content, metadata,
           CASE WHEN norm = 0 OR ${qn} = 0 THEN 0 ELSE (SELECT sum(a * b) FROM unnest(vector, ${q}) AS t(a, b)) / (norm * ${qn}) END AS score
         FROM ${this.#s}.embeddings
         WHERE namespace IS NOT DISTINCT FROM $1 AND dimensions = $2 ${filters.map((clause) => `AND ${clause}`).join(' ')}
       ) AS scored
       WHERE $4::float8 IS NULL OR score >= $4::float8
       ORDER BY score DESC, id COLLATE "C" ASC LIMIT $3`,
      values,
    )
    return rows
  }

  /** pgvector HNSW walk (approximate nearest neighbours), then re-sorted best first with ties by id. */
  async #approximate(pgvector: PgvectorSupport, vector: number[], values: unknown[]): Promise<EmbeddingRow[]> {
    values.push(toVectorLiteral(vector))
    const dimensions = values[1] as number
    const cast = `${pgvector.type}(${dimensions})`
    const distance = `(embedding::${cast} ${pgvector.cosineDistance} $${values.length}::${cast})`
    return this.#database.transaction(async (transaction) => {
      const efSearch = Math.min(1000, Math.max(40, (values[2] as number | null) ?? 1000))
      await transaction.query(`SET LOCAL hnsw.ef_search = ${efSearch}`)
      const { rows } = await transaction.query<EmbeddingRow>(
        `SELECT * FROM (
           SELECT id, namespace, vector, content, metadata, CASE WHEN norm = 0 THEN 0 ELSE 1 - ${distance} END AS score
           FROM ${this.#s}.embeddings
           WHERE namespace IS NOT DISTINCT FROM $1 AND dimensions = $2
           ORDER BY ${distance} LIMIT $3
         ) AS nearest
         WHERE $4::float8 IS NULL OR score >= $4::float8
         ORDER BY score DESC, id COLLATE "C" ASC`,
        values,
      )
      return rows
    })
  }

  /** One partial HNSW index per dimension count (a `vector` column without a fixed dimension cannot be indexed whole). */
  async #ensureIndex(pgvector: PgvectorSupport, dimensions: number): Promise<void> {
    if (dimensions > hnswMaxDimensions || this.#indexedDimensions.has(dimensions)) return
    const cast = `${pgvector.type}(${dimensions})`
    try {
      await this.#database.query(
        `CREATE INDEX IF NOT EXISTS embeddings_hnsw_${dimensions}_idx ON ${this.#s}.embeddings
         USING hnsw ((embedding::${cast}) ${pgvector.cosineOps}) WHERE dimensions = ${dimensions}`,
      )
    } catch (error) {
      // Two processes creating the same index at once: the loser sees a duplicate; the index exists.
      const state = sqlState(error)
      if (state !== '23505' && state !== '42P07') throw mapPostgresError(error, `creating the HNSW index for ${dimensions} dimensions`)
    }
    this.#indexedDimensions.add(dimensions)
  }

  async get(id: string): Promise<EmbeddingRecord | undefined> {
    try {
      const { rows } = await this.#database.query<EmbeddingRow>(`SELECT id, namespace, vector, content, metadata FROM ${this.#s}.embeddings WHERE id = $1`, [
        id,
      ])
      return rows[0] === undefined ? undefined : toRecord(rows[0])
    } catch (error) {
      throw mapPostgresError(error, `reading embedding "${id}"`)
    }
  }

  async delete(ids: string[]): Promise<void> {
    if (ids.length === 0) return
    try {
      await this.#database.query(`DELETE FROM ${this.#s}.embeddings WHERE id = ANY($1::text[])`, [ids])
    } catch (error) {
      throw mapPostgresError(error, `deleting ${ids.length} embedding(s)`)
    }
  }

  async deleteNamespace(namespace: string): Promise<void> {
    try {
      await this.#database.query(`DELETE FROM ${this.#s}.embeddings WHERE namespace = $1`, [namespace])
    } catch (error) {
      throw mapPostgresError(error, `deleting namespace "${namespace}"`)
    }
  }
}

/** Metadata filters as SQL: a primitive must equal the JSON value; an array lists the accepted values. */
function filterClauses(filter: EmbeddingQuery['filter'], values: unknown[]): string[] {
  if (filter === undefined) return []
  const clauses: string[] = []
  for (const [key, expected] of Object.entries(filter)) {
    // Keys and strings are compared as stored: escaped the same way.
    values.push(toText(key))
    const field = `metadata -> $${values.length}::text`
    values.push(toJsonbText(expected))
    const parameter = `$${values.length}::jsonb`
    clauses.push(Array.isArray(expected) ? `(${field}) IN (SELECT jsonb_array_elements(${parameter}))` : `(${field}) = ${parameter}`)
  }
  return clauses
}

function toVectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`
}

function toRecord(row: EmbeddingRow): EmbeddingRecord {
  return {
    id: row.id,
    vector: row.vector.map(Number),
    ...(row.content !== null && { content: fromText(row.content) }),
    ...(row.namespace !== null && { namespace: row.namespace }),
    metadata: fromJsonb(row.metadata),
  }
}

function describe(namespace: string | null): string {
  return namespace === null ? '(default)' : `"${namespace}"`
}

function dimensionError(id: string, actual: number, namespace: string | null, expected: number): StoreError {
  return new StoreError(
    `[spindle/store-postgres] embedding "${id}" has ${actual} dimensions but namespace ${describe(namespace)} holds ${expected}; embed with the same model or use another namespace`,
  )
}

// Prepares each SQL text once per store and reuses the statement (better-sqlite3 statements are reusable).
import type BetterSqlite3 from 'better-sqlite3'

export class StatementCache {
  readonly #database: BetterSqlite3.Database
  readonly #statements = new Map<string, BetterSqlite3.Statement>()

  constructor(database: BetterSqlite3.Database) {
    this.#database = database
  }

  get(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.#database.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /** A statement of its own (not shared with `get`) that returns each row's first column only. */
  pluck(sql: string): BetterSqlite3.Statement {
    const key = `pluck:${sql}`
    let statement = this.#statements.get(key)
    if (statement === undefined) {
      statement = this.#database.prepare(sql).pluck()
      this.#statements.set(key, statement)
    }
    return statement
  }
}

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
}

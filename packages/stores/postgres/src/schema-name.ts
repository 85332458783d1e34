// Validates and quotes the schema that holds Spindle's tables (identifiers cannot be bound as parameters).
import { ConfigurationError } from '@spindle/core'

const identifier = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

/** Returns the schema name quoted for SQL, after checking it is a plain identifier. */
export function quoteSchema(schema: string): string {
  if (!identifier.test(schema)) {
    throw new ConfigurationError(
      `[spindle/store-postgres] schema "${schema}" is not a plain identifier; use letters, digits and underscores (at most 63, not starting with a digit)`,
    )
  }
  return `"${schema}"`
}

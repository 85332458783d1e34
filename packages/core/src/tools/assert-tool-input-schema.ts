// Refuses a tool input schema Spindle cannot read (zod 3, another zod major, not a schema) with a ToolSchemaError
// that names the fix, instead of a run that ends later with "Cannot read properties of undefined (reading 'def')".
import { ToolSchemaError } from '../errors/tool-schema-error.js'

const fix =
  "Spindle reads zod 4 schemas: install zod 4 (npm install zod@^4) and build the schema with `import { z } from 'zod'` " +
  "(on zod 3.25, `import { z } from 'zod/v4'` also works), or pass a plain JSON Schema with jsonSchema() from @spindle/core."

/**
 * Throws a {@link ToolSchemaError} unless `schema` is a zod 4 schema or a `jsonSchema()` input.
 * `defineTool`, `ToolRegistry.register` and run admission call it, so a wrong schema fails where the tool is made.
 */
export function assertToolInputSchema(schema: unknown, toolName: string): void {
  const found = schemaKind(schema)
  if (found === 'zod4' || found === 'json-schema') return
  const what =
    found === 'zod3'
      ? 'a zod 3 schema'
      : found === 'zod-other'
        ? `a zod ${zodMajor(schema)} schema`
        : `not a zod 4 schema nor a jsonSchema() input (got ${describe(schema)})`
  throw new ToolSchemaError(toolName, found, `[spindle/core] tool "${toolName}": inputSchema is ${what}. ${fix}`)
}

type SchemaKind = 'zod4' | 'json-schema' | 'zod3' | 'zod-other' | 'other'

function schemaKind(schema: unknown): SchemaKind {
  if (typeof schema !== 'object' || schema === null) return 'other'
  if ((schema as { kind?: unknown }).kind === 'json-schema' && typeof (schema as { jsonSchema?: unknown }).jsonSchema === 'object') return 'json-schema'
  const internals = (schema as { _zod?: { version?: { major?: unknown } } })._zod
  if (typeof internals === 'object' && internals !== null) return zodMajor(schema) === 4 ? 'zod4' : 'zod-other'
  // zod 3 schemas keep their definition in `_def` (with a `typeName`) and have no `_zod` internals.
  const def = (schema as { _def?: unknown })._def
  if (typeof def === 'object' && def !== null && typeof (schema as { safeParse?: unknown }).safeParse === 'function') return 'zod3'
  return 'other'
}

function zodMajor(schema: unknown): unknown {
  return (schema as { _zod?: { version?: { major?: unknown } } })._zod?.version?.major
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object with keys ${JSON.stringify(Object.keys(value).slice(0, 5))}`
  return typeof value
}

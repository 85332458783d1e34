// JSON value types shared by every spec: anything persisted must be one of these.
export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }
/** A JSON Schema document (draft 2020-12 or 7), as sent to providers. */
export type JsonSchema = { [key: string]: unknown }

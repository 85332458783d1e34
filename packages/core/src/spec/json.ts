// JSON value types shared by every spec: anything persisted must be one of these.
/** A JSON scalar. */
export type JsonPrimitive = string | number | boolean | null
/** Any JSON value: what tool arguments, tool results, events and stored records are made of. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue }
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue }
/** A JSON Schema document (draft 2020-12 or 7), as sent to providers. */
export type JsonSchema = { [key: string]: unknown }

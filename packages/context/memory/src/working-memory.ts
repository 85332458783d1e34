// workingMemory: a small structured record (a zod object) kept per session or per resource, shown to the model
// in the system prompt and updated by the model through a tool. Stored durably through the public stores:
// a session's metadata (session scope) or one EmbeddingStore record per field (resource scope).
import { ConfigurationError, defineTool, type ContextAdapter, type JsonObject, type JsonValue, type Plugin, type Stores, type Tool } from '@spindle/core'
import type { z } from 'zod'
import type { MemoryScope } from './semantic-recall.js'

/** Options of `workingMemory()`: the record's zod schema and its scope. */
export interface WorkingMemoryOptions<Schema extends z.ZodObject> {
  /** The record's shape. Keep it small: it is in every request. */
  schema: Schema
  /** `session` (default) or `resource` (shared by the sessions of one `resourceId`; a session without one uses session scope). */
  scope?: MemoryScope
  /** The value before the model writes anything. */
  initial?: Partial<z.infer<Schema>>
  /** The update tool's name (default `update_working_memory`). */
  toolName?: string
  /** Heading of the system section (default `Working memory`). */
  title?: string
  /** Where to keep it; by default the run's stores (seen by the context adapter before each step). */
  stores?: Pick<Stores, 'sessions' | 'embeddings'>
  /** Adapter and plugin name (default `working-memory`). */
  name?: string
}

/** The working-memory plugin: the adapter that shows the record in the system prompt, the `update_working_memory` tool, and `get()` to read a session's record. */
export interface WorkingMemory<Schema extends z.ZodObject> extends Plugin {
  readonly adapter: ContextAdapter
  readonly tool: Tool
  /** Reads the current record of a session (resolving resource scope through the session's `resourceId`). */
  get(sessionId: string, stores?: Pick<Stores, 'sessions' | 'embeddings'>): Promise<Partial<z.infer<Schema>>>
}

type MemoryStores = Pick<Stores, 'sessions' | 'embeddings'>

/** Session metadata key of a session-scoped record. */
export const workingMemoryMetadataKey = 'spindle.workingMemory'
const resourceNamespace = 'spindle:working-memory'

interface Location {
  stores: MemoryStores
  sessionId: string
  resourceId: string | undefined
}

/**
 * @example
 * const memory = workingMemory({ schema: z.object({ name: z.string(), units: z.enum(['metric', 'imperial']) }), scope: 'resource' })
 * const extensions = new Extensions().use(sqliteStores({ path })).use(memory)
 */
export function workingMemory<Schema extends z.ZodObject>(options: WorkingMemoryOptions<Schema>): WorkingMemory<Schema> {
  type Value = Partial<z.infer<Schema>>
  const scope = options.scope ?? 'session'
  const toolName = options.toolName ?? 'update_working_memory'
  const title = options.title ?? 'Working memory'
  const name = options.name ?? 'working-memory'
  const initial = (options.initial ?? {}) as Value
  // Where each session's record lives, learned by the adapter before the model (and so the tool) runs.
  const locations = new Map<string, Location>()
  // Read once per run (and after each update), not once per step.
  const cache = new Map<string, { runId: string; value: Value }>()

  const resourceOf = (location: Location) => (scope === 'resource' ? location.resourceId : undefined)
  /** The whole record, as earlier versions wrote it: still read, under the fields' own records. */
  const recordId = (resourceId: string) => `${resourceNamespace}:${resourceId}`
  /**
   * One record per field: the sessions of a resource run in any process (their session gates do not serialize
   * them), and two updates of different fields then never overwrite each other; the same field, the last wins.
   */
  const fieldRecordId = (resourceId: string, field: string) => `${resourceNamespace}:field:${JSON.stringify([resourceId, field])}`
  const fields = Object.keys(options.schema.shape)

  async function locate(sessionId: string, stores: MemoryStores | undefined): Promise<Location> {
    const known = locations.get(sessionId)
    if (known) return known
    const resolved = options.stores ?? stores
    if (!resolved) {
      throw new ConfigurationError(
        `[spindle/context-memory] working memory for session "${sessionId}" has no stores yet; pass workingMemory({ stores }) or let a run build its context first`,
      )
    }
    const session = await resolved.sessions.getSession(sessionId)
    const location = { stores: resolved, sessionId, resourceId: session?.resourceId }
    // A session that does not exist yet may be created with a resourceId later: only a found session is remembered.
    if (!session) return location
    locations.set(sessionId, location)
    while (locations.size > 1_000) locations.delete(locations.keys().next().value!)
    return location
  }

  async function read(location: Location): Promise<Value> {
    const resourceId = resourceOf(location)
    if (resourceId) {
      const { embeddings } = location.stores
      const [whole, ...own] = await Promise.all([
        embeddings.get(recordId(resourceId)),
        ...fields.map((field) => embeddings.get(fieldRecordId(resourceId, field))),
      ])
      const value = { ...initial, ...(whole?.metadata.value as Value | undefined) } as Record<string, unknown>
      for (let index = 0; index < fields.length; index++) {
        const record = own[index]
        if (record) value[fields[index]!] = record.metadata.value
      }
      return value as Value
    }
    const session = await location.stores.sessions.getSession(location.sessionId)
    return { ...initial, ...(session?.metadata[workingMemoryMetadataKey] as Value | undefined) }
  }

  /** Writes the record; in resource scope only the `changed` fields (each its own record). */
  async function write(location: Location, value: Value, changed: readonly string[]): Promise<void> {
    const resourceId = resourceOf(location)
    if (resourceId) {
      // One-dimensional vectors in their own namespace: each record is a durable key-value entry, never searched.
      const updatedAt = Date.now()
      const records = changed
        .filter((field) => Object.hasOwn(value, field))
        .map((field) => ({
          id: fieldRecordId(resourceId, field),
          vector: [1],
          namespace: resourceNamespace,
          metadata: { resourceId, field, value: (value as Record<string, JsonValue>)[field]!, updatedAt },
        }))
      if (records.length) await location.stores.embeddings.upsert(records)
      return
    }
    const session = await location.stores.sessions.getSession(location.sessionId)
    // The session gate serializes runs of a session, so this read-modify-write does not race another run.
    await location.stores.sessions.updateSession(location.sessionId, { metadata: { ...session?.metadata, [workingMemoryMetadataKey]: value as JsonObject } })
  }

  // Updates of one record run one after another: parallel tool calls in a step (or two sessions of a resource)
  // would otherwise each read the old record and the last write would drop the other fields.
  const updates = new Map<string, Promise<unknown>>()
  function serialized<T>(key: string, update: () => Promise<T>): Promise<T> {
    const next = (updates.get(key) ?? Promise.resolve()).then(update)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    updates.set(key, settled)
    void settled.then(() => {
      if (updates.get(key) === settled) updates.delete(key)
    })
    return next
  }
  const recordKey = (location: Location) => {
    const resourceId = resourceOf(location)
    return resourceId ? `resource:${resourceId}` : `session:${location.sessionId}`
  }

  const patchSchema = options.schema.partial()
  const tool = defineTool({
    name: toolName,
    description: `Updates your ${title.toLowerCase()}: a small record that stays in your instructions across the whole conversation (and future ones). Send only the fields that changed; they are merged into the record.`,
    inputSchema: patchSchema as unknown as z.ZodType<Value>,
    effect: 'write',
    idempotent: true,
    async execute(patch, context) {
      const location = await locate(context.sessionId, undefined)
      return serialized(recordKey(location), async () => {
        const merged = { ...(await read(location)), ...patch }
        const checked = patchSchema.safeParse(merged)
        if (!checked.success) throw new Error(`the merged record does not match the schema: ${checked.error.message}`)
        await write(location, checked.data as Value, Object.keys(patch as object))
        const cached = cache.get(context.sessionId)
        if (cached) cached.value = checked.data as Value
        return { updated: Object.keys(patch as object), memory: checked.data as JsonObject }
      })
    },
  })

  const adapter: ContextAdapter = {
    specificationVersion: 'v1',
    name,
    async apply(draft, input) {
      const location = await locate(input.sessionId, input.stores)
      let cached = cache.get(input.sessionId)
      if (!cached || cached.runId !== input.runId) {
        cached = { runId: input.runId, value: await read(location) }
        cache.set(input.sessionId, cached)
        while (cache.size > 1_000) cache.delete(cache.keys().next().value!)
      }
      const shown = Object.keys(cached.value).length ? JSON.stringify(cached.value, null, 2) : '{} (empty)'
      draft.system.push(`${title} (keep it current: call ${toolName} with only the fields that changed when you learn something worth remembering):\n${shown}`)
    },
  }

  return {
    name: `context-memory:${name}`,
    adapter,
    tool,
    async get(sessionId, stores) {
      return read(await locate(sessionId, stores))
    },
    setup(extensions) {
      extensions.addContextAdapter(adapter)
      extensions.tools.register(tool)
    },
  }
}

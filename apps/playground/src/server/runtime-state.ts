// The runtime state of a session: the values every run of it finds in its RuntimeStore (the request-scoped state the
// tools read, never sent to the model unless a tool returns it). Kept in the session's metadata, so a fork can be
// given another one (edit and replay) and its runs see the change.
import type { JsonObject, JsonValue } from '@spindle/core'

/** What a session's runs find in their RuntimeStore when it sets none: the demo's signed-in user. */
export const defaultRuntimeState: JsonObject = { user: { name: 'Ada', plan: 'free' }, locale: 'en-GB' }

/** The runtime state kept in a session's metadata (`runtimeState`), or the default. */
export function runtimeStateOf(metadata: Record<string, unknown> | undefined): JsonObject {
  const state = metadata?.runtimeState as JsonValue | undefined
  return typeof state === 'object' && state !== null && !Array.isArray(state) ? state : defaultRuntimeState
}

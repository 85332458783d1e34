// The field under which a RuntimeStore travels inside a tool-call context object (e.g. `experimental_context`).
/** The field under which a RuntimeStore travels inside a tool-call context object (e.g. the AI SDK's `experimental_context`). */
export const RUNTIME_CONTEXT_FIELD = 'spindle:runtime' as const
/** The type of `RUNTIME_CONTEXT_FIELD`. */
export type RuntimeContextField = typeof RUNTIME_CONTEXT_FIELD

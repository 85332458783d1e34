// The field under which a RuntimeStore travels inside a tool-call context object (e.g. `experimental_context`).
export const RUNTIME_CONTEXT_FIELD = 'spindle:runtime' as const
export type RuntimeContextField = typeof RUNTIME_CONTEXT_FIELD

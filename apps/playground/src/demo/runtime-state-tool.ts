// A demo tool that reads the request's RuntimeStore: what edit-and-replay changes when it edits the runtime state.
import { createRuntimeTool } from '@spindle/core'
import { z } from 'zod'

/** Returns every value of the run's RuntimeStore (the session's runtime state), by key. */
export const runtimeStateTool = createRuntimeTool({
  id: 'runtime_state',
  name: 'runtime_state',
  description: 'Reads the request-scoped runtime state (the signed-in user, the locale…) that the application gave this run',
  inputSchema: z.object({}),
  idempotent: true,
  effect: 'read',
  execute: (_input, { runtime }) => ({ values: Object.fromEntries(runtime.keys().map((key) => [key, runtime.get(key)])) }),
})

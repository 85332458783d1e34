// createRuntimeTool: a tool whose execute receives the request's RuntimeStore, and fails at once without one.
import { RuntimeStoreError } from '../errors/errors.js'
import { defineTool, type ToolDefinition } from './define-tool.js'
import type { Tool, ToolExecutionContext } from './tool.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'

/** The context a runtime tool's `execute` receives: the tool context with a guaranteed, typed `runtime`. */
export interface RuntimeToolContext<State extends object = Record<string, unknown>> extends Omit<ToolExecutionContext, 'runtime'> {
  runtime: RuntimeStore<State>
}

/**
 * The definition `createRuntimeTool()` takes: a tool definition whose `execute` also receives the request-scoped
 * RuntimeStore (`context.runtime`), with a dotted `id` for events and the journal.
 */
export interface RuntimeToolDefinition<Input, Output, State extends object = Record<string, unknown>> extends Omit<
  ToolDefinition<Input, Output>,
  'id' | 'execute'
> {
  /** Identity in events and the journal (e.g. `excel.preview`); the model-facing name defaults to a safe form (`excel_preview`). */
  id: string
  execute(input: Input, context: RuntimeToolContext<State>): Promise<Output> | Output
}

/**
 * A tool that reads the request-scoped runtime: `context.runtime` when the kernel passes it, else the runtime
 * carried under `RUNTIME_CONTEXT_FIELD`, else `RuntimeStore.current()`. With none, it fails before running.
 *
 * @example
 * const previewSheet = createRuntimeTool({
 *   id: 'excel.preview',
 *   description: 'Preview a sheet of the loaded workbook',
 *   inputSchema: z.object({ sheet: z.string() }),
 *   async execute({ sheet }, { runtime }) {
 *     return { rows: extractPreview(runtime.require<Workbook>('workbook'), sheet).slice(0, 5) }
 *   },
 * })
 */
export function createRuntimeTool<Input, Output, State extends object = Record<string, unknown>>(
  definition: RuntimeToolDefinition<Input, Output, State>,
): Tool<Input, Output> {
  const { execute, ...rest } = definition
  const id = definition.id
  return defineTool<Input, Output>({
    ...rest,
    async execute(input, context) {
      const runtime =
        (context?.runtime as RuntimeStore<State> | undefined) ?? RuntimeStore.resolveFromExperimentalContext<State>(context) ?? RuntimeStore.current<State>()
      if (!runtime) {
        throw new RuntimeStoreError(
          `[spindle/core] runtime tool "${id}" ran without a RuntimeStore. Pass { runtime } to agent.generate()/stream() or to the run request, or call it inside runtime.run(…) / withRuntime(runtime, …).`,
          { details: { tool: id } },
        )
      }
      // The kernel's context already carries this runtime: passed as is (a spread would also create its lazy `signal`).
      const scoped = (context?.runtime === runtime ? context : { ...context, runtime }) as RuntimeToolContext<State>
      if (RuntimeStore.current() === runtime) return await execute(input, scoped)
      return await runtime.run(() => execute(input, scoped))
    },
  })
}

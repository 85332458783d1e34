// createRuntime and withRuntime: the seeds' helpers around RuntimeStore.
import { RuntimeStore, type RuntimeStoreOptions } from './runtime-store.js'

/**
 * Shorthand for `new RuntimeStore(init)`.
 *
 * @example
 * const runtime = createRuntime<{ workbook: Workbook }>({ defaults: { workbook } })
 */
export function createRuntime<T extends object = Record<string, unknown>>(init?: RuntimeStoreOptions<T>): RuntimeStore<T> {
  return new RuntimeStore<T>(init)
}

/**
 * Snapshots `runtime`, runs `callback` with the snapshot bound to AsyncLocalStorage, and always disposes the
 * snapshot afterwards — after a sync or async callback, on success and on throw. Resolves with the callback's result.
 * When the callback fails and cleanups fail too, the rejection is an `AggregateError` whose first error (and
 * `cause`) is the callback's error; otherwise the callback's error is rethrown as is.
 * With no runtime (`undefined`), the callback runs with `undefined`.
 *
 * @example
 * await withRuntime(runtime, async (scoped) => {
 *   const workbook = scoped.require('workbook')
 * })
 */
export function withRuntime<T extends object, R>(runtime: RuntimeStore<T>, callback: (scoped: RuntimeStore<T>) => R): Promise<Awaited<R>>
export function withRuntime<T extends object, R>(
  runtime: RuntimeStore<T> | undefined,
  callback: (scoped: RuntimeStore<T> | undefined) => R,
): Promise<Awaited<R>>
export async function withRuntime<T extends object, R>(runtime: RuntimeStore<T> | undefined, callback: (scoped: any) => R): Promise<Awaited<R>> {
  if (!runtime) return await callback(undefined)
  const scoped = runtime.snapshot()
  let result: Awaited<R>
  try {
    result = await scoped.run(() => callback(scoped))
  } catch (error) {
    try {
      await scoped.dispose()
    } catch (cleanupError) {
      const cleanupErrors = cleanupError instanceof AggregateError ? cleanupError.errors : [cleanupError]
      throw new AggregateError([error, ...cleanupErrors], `[spindle/core] withRuntime: the callback failed and so did ${cleanupErrors.length} cleanup(s)`, {
        cause: error,
      })
    }
    throw error
  }
  await scoped.dispose()
  return result
}

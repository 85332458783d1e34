// A call's RuntimeStore: the request's store cloned for the call, its cleanups run when the call ends.
import { AdmissionError } from '../errors/errors.js'
import type { Extensions } from '../extensions/extensions.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'
import { invalidRuntimeStore } from './admission.js'

/**
 * Runs `body` with the request's store cloned for the call; its cleanups run when the call ends, however it ends,
 * and a failing cleanup rejects the call (cleanup errors are never silent). Runtime resources registered on the
 * extensions are in scope for `runtime.load()` during the run.
 */
export async function withRuntimeStore<T>(
  extensions: Extensions,
  runtime: RuntimeStore<any> | undefined,
  body: (scoped: RuntimeStore | undefined) => Promise<T>,
): Promise<T> {
  const resources = extensions.runtimeResources
  if (!runtime) return resources ? RuntimeStore.runWithResources(resources, () => body(undefined)) : body(undefined)
  // Checked here too: the store is snapshotted before the request's admission runs.
  const wrong = invalidRuntimeStore(runtime)
  if (wrong) throw new AdmissionError(`[spindle/core] invalid run request: ${wrong}`)
  const scoped = runtime.snapshot() as RuntimeStore
  let result: T
  try {
    result = await scoped.run(() => body(scoped), { resources })
  } catch (error) {
    await scoped.dispose().catch(() => {})
    throw error
  }
  await scoped.dispose()
  return result
}

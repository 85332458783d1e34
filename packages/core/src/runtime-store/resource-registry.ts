// Runtime-resource registries: a module-level one filled by registerRuntimeResource, and scoped ones.
import { ConfigurationError, DuplicateError } from '../errors/errors.js'
import type { RuntimeResourceDefinition, RuntimeResourceRegistry } from './resource-registry-types.js'

/**
 * A registry scoped to an `Extensions` (`ext.runtimeResources`) or to a runtime
 * (`new RuntimeStore({ resources })`); both take precedence over the module-level registry.
 *
 * @example
 * const resources = createRuntimeResourceRegistry()
 * resources.register('tenantDb', { loader: (url: string) => connect(url), dispose: (db) => db.close() })
 * const runtime = new RuntimeStore({ resources })
 */
export function createRuntimeResourceRegistry(): RuntimeResourceRegistry {
  const definitions = new Map<string, RuntimeResourceDefinition>()
  return {
    get: (name) => definitions.get(name),
    has: (name) => definitions.has(name),
    names: () => [...definitions.keys()],
    register(name, definition) {
      if (typeof name !== 'string' || name.length === 0) throw new ConfigurationError('[spindle/core] a runtime resource needs a non-empty name')
      if (!definition || typeof definition.loader !== 'function') {
        throw new ConfigurationError(`[spindle/core] runtime resource "${name}" needs a loader(source, runtime) function`)
      }
      if (definitions.has(name)) {
        throw new DuplicateError(
          `[spindle/core] a runtime resource named "${name}" is already registered; call the function returned by the first registration to unregister it, or use a scoped registry (createRuntimeResourceRegistry())`,
        )
      }
      const stored = definition as RuntimeResourceDefinition
      definitions.set(name, stored)
      return () => {
        if (definitions.get(name) === stored) definitions.delete(name)
      }
    },
    unregister: (name) => definitions.delete(name),
  }
}

/** The process-wide registry behind `registerRuntimeResource` (lowest precedence). */
export const moduleRuntimeResources: RuntimeResourceRegistry = createRuntimeResourceRegistry()

/**
 * Declares a resource that `runtime.load(name, source)` can load; its `dispose` runs at the end of the request.
 * Returns a function that unregisters it. A duplicate name fails with `DuplicateError`.
 *
 * @example
 * registerRuntimeResource('excelWorkbook', {
 *   async loader(source: string, runtime) {
 *     const workbook = await Workbook.fromBuffer(Buffer.from(source, 'base64'))
 *     runtime.set('workbook', workbook)
 *     return workbook
 *   },
 *   dispose(workbook) { workbook?.destroy() },
 * })
 */
export function registerRuntimeResource<Source, Value>(name: string, definition: RuntimeResourceDefinition<Source, Value>): () => void {
  return moduleRuntimeResources.register(name, definition)
}

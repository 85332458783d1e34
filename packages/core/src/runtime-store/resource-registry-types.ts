// The shape of a runtime-resource registry (module-level, per Extensions, or per runtime).
import type { RuntimeStore } from './runtime-store.js'

/**
 * How to turn a source (base64, a path, credentials…) into a live value, and how to release it.
 * `loader` may store the value itself (`runtime.set('workbook', workbook)`) and return it; otherwise
 * `runtime.load(name, source)` stores the returned value under `name`.
 */
export interface RuntimeResourceDefinition<Source = any, Value = any> {
  loader(source: Source, runtime: RuntimeStore<any>): Value | Promise<Value>
  /** Runs exactly once, at the end of the request (or on the first `dispose()` of the store family). */
  dispose?(value: Value): void | Promise<void>
}

/**
 * Named resources that `RuntimeStore.load(name, source)` creates on first use and disposes with the store (a
 * database handle, a parsed workbook). Registered on `Extensions.runtimeResources`, on a RuntimeStore, or module-wide.
 */
export interface RuntimeResourceRegistry {
  get(name: string): RuntimeResourceDefinition | undefined
  names(): string[]
  has(name: string): boolean
  /** Registers a resource; fails with `DuplicateError` on a taken name. Returns a function that unregisters it. */
  register<Source, Value>(name: string, definition: RuntimeResourceDefinition<Source, Value>): () => void
  unregister(name: string): boolean
}

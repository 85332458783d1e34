// The shape of a runtime-resource registry (module-level, per Extensions, or per runtime).
import type { RuntimeStore } from './runtime-store.js'

export interface RuntimeResourceDefinition<Source = any, Value = any> {
  loader(source: Source, runtime: RuntimeStore<any>): Value | Promise<Value>
  dispose?(value: Value): void | Promise<void>
}

export interface RuntimeResourceRegistry {
  get(name: string): RuntimeResourceDefinition | undefined
  names(): string[]
}

// The AsyncLocalStorage scope that carries the active RuntimeStore (and the ambient resource registry) through async calls.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { RuntimeResourceRegistry } from './resource-registry-types.js'
import type { RuntimeStore } from './runtime-store.js'

export interface RuntimeScope {
  readonly store: RuntimeStore<any> | undefined
  /** The registry of the AgentRuntime running this request (`Extensions.runtimeResources`), if any. */
  readonly resources: RuntimeResourceRegistry | undefined
}

// One storage per process, even when two copies of @spindle/core are installed.
const storageKey = Symbol.for('spindle.runtime-store.scope')
const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<RuntimeScope> | undefined>
export const runtimeScope: AsyncLocalStorage<RuntimeScope> = (holder[storageKey] ??= new AsyncLocalStorage<RuntimeScope>())

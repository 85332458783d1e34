// The composable registry: typed slots for the known kinds plus a generic named registry.
import { ConfigurationError, DuplicateError, NotFoundError } from '../errors/errors.js'
import type { CompactionStrategy } from '../spec/compaction-strategy.js'
import type { ContextAdapter } from '../spec/context-adapter.js'
import { ProviderRegistry } from '../providers/provider-registry.js'
import type { EventBus } from '../spec/event-bus.js'
import type { RunQueue } from '../spec/run-queue.js'
import type { SessionGate } from '../spec/session-gate.js'
import type { Stores } from '../spec/stores.js'
import { ToolRegistry } from '../tools/tool-registry.js'
import type { RuntimeResourceRegistry } from '../runtime-store/resource-registry-types.js'
import type { Plugin } from './define-plugin.js'
import { assertSpecificationVersion } from './specification-version.js'
import type { RuntimeObserver } from '../spec/runtime-observer.js'
import { createRedactor, type Redactor } from '../observability/redactor.js'
import { priceTable, type PriceTable } from '../observability/price-table.js'

export type { RunQueue } from '../spec/run-queue.js'

/**
 * @example
 * const ext = new Extensions().use(sqliteStores({ path: 'spindle.db' })).use(openaiPlugin())
 * const runtime = new AgentRuntime(ext)
 */
export class Extensions {
  readonly providers = new ProviderRegistry()
  readonly tools = new ToolRegistry()
  /** Ordered context adapters (added after the built-in instruction and history adapters). */
  readonly context: ContextAdapter[] = []
  readonly stores: Partial<Stores> = {}
  /**
   * The compaction strategy (default: truncation). Setting one checks its `specificationVersion` (`'v1'`, or none).
   */
  get compaction(): CompactionStrategy | undefined {
    return this.#compaction
  }
  set compaction(strategy: CompactionStrategy | undefined) {
    if (strategy !== undefined) assertSpecificationVersion('compaction strategy', strategy.name, strategy)
    this.#compaction = strategy
  }
  gate: SessionGate | undefined
  events: EventBus | undefined
  queue: RunQueue | undefined
  /** Runtime resources scoped to these extensions (take precedence over the module-level registry). */
  runtimeResources: RuntimeResourceRegistry | undefined
  /** Synchronous observers of every event of every run (tracing, metrics); see `addObserver`. */
  readonly observers: RuntimeObserver[] = []
  /**
   * Hides secrets from events, run errors and snapshots (on by default, reading the environment when the
   * extensions are created); `false` turns redaction off.
   */
  redactor: Redactor | false = createRedactor()
  /** Model prices used to fill `usage.costUsd` per step: a copy of `priceTable` that you extend or override. */
  prices: PriceTable = { ...priceTable }

  #compaction: CompactionStrategy | undefined
  readonly #named = new Map<string, unknown>()
  readonly #plugins: Plugin[] = []
  readonly #pending: Promise<void>[] = []
  #disposed = false

  /** Registers a named value; fails on a duplicate name. */
  register<V>(name: string, value: V): this {
    if (this.#named.has(name)) throw new DuplicateError(`[spindle/core] "${name}" is already registered; use replace() to swap it`)
    this.#named.set(name, value)
    return this
  }

  replace<V>(name: string, value: V): this {
    this.#named.set(name, value)
    return this
  }

  get<V = unknown>(name: string): V | undefined {
    return this.#named.get(name) as V | undefined
  }

  /** Returns the named value or throws an error listing the names that exist. */
  require<V = unknown>(name: string): V {
    if (!this.#named.has(name)) {
      const names = [...this.#named.keys()]
      throw new NotFoundError(`[spindle/core] nothing is registered as "${name}". Registered names: ${names.length ? names.join(', ') : '(none)'}`)
    }
    return this.#named.get(name) as V
  }

  has(name: string): boolean {
    return this.#named.has(name)
  }

  names(): string[] {
    return [...this.#named.keys()]
  }

  /** Sets some or all of the six persistent stores. */
  setStores(stores: Partial<Stores>): this {
    for (const [kind, store] of Object.entries(stores)) {
      if (store !== undefined) (this.stores as Record<string, unknown>)[kind] = store
    }
    return this
  }

  /** Adds a context adapter after the others; fails on a duplicate name or a `specificationVersion` other than `'v1'`. */
  addContextAdapter(adapter: ContextAdapter): this {
    assertSpecificationVersion('context adapter', adapter.name, adapter)
    if (this.context.some((existing) => existing.name === adapter.name)) {
      throw new DuplicateError(`[spindle/core] context adapter "${adapter.name}" is already registered`)
    }
    this.context.push(adapter)
    return this
  }

  /** Adds an observer called synchronously for every event (after redaction); its errors never break a run. */
  addObserver(observer: RuntimeObserver): this {
    assertSpecificationVersion('observer', undefined, observer)
    this.observers.push(observer)
    return this
  }

  /** Runs a plugin's setup. Async setups are awaited by `ready()` (and by the runtime before its first run). */
  use(plugin: Plugin): this {
    if (this.#disposed) throw new ConfigurationError('[spindle/core] these extensions were disposed; create new ones')
    if (this.#plugins.some((existing) => existing.name === plugin.name)) {
      throw new DuplicateError(`[spindle/core] plugin "${plugin.name}" is already in use`)
    }
    this.#plugins.push(plugin)
    let result: ReturnType<Plugin['setup']>
    try {
      result = plugin.setup(this)
    } catch (error) {
      // Not in use: it can be fixed and used again, and its dispose is not called for a setup that never finished.
      this.#plugins.splice(this.#plugins.indexOf(plugin), 1)
      throw new ConfigurationError(`[spindle/core] plugin "${plugin.name}" failed to set up: ${(error as Error)?.message ?? error}`, { cause: error })
    }
    if (result && typeof (result as Promise<void>).then === 'function') {
      const pending = (result as Promise<void>).catch((error: unknown) => {
        throw new ConfigurationError(`[spindle/core] plugin "${plugin.name}" failed to set up: ${(error as Error)?.message ?? error}`, { cause: error })
      })
      pending.catch(() => {})
      this.#pending.push(pending)
    }
    return this
  }

  get plugins(): readonly Plugin[] {
    return this.#plugins
  }

  /** Resolves when every async plugin setup has finished; rejects with the first failure. */
  async ready(): Promise<void> {
    if (this.#pending.length) await Promise.all(this.#pending)
  }

  /** Disposes plugins in reverse order; every dispose runs even when one throws. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    await Promise.allSettled(this.#pending)
    const errors: unknown[] = []
    for (const plugin of [...this.#plugins].reverse()) {
      try {
        await plugin.dispose?.()
      } catch (error) {
        errors.push(error)
      }
    }
    if (errors.length === 1) throw errors[0]
    if (errors.length > 1) throw new AggregateError(errors, '[spindle/core] several plugins failed to dispose')
  }
}

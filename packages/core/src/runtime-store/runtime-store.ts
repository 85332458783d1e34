// RuntimeStore: typed, request-scoped state shared between application code and the tools the model runs (DESIGN §2.4).
// Ownership: snapshots share entries and cleanup records by reference, so each cleanup runs exactly once
// across a store and all its snapshots, and a disposed value fails loudly everywhere it was held.
import { DisposedValueError, RuntimeStoreError } from '../errors/errors.js'
import { moduleRuntimeResources } from './resource-registry.js'
import type { RuntimeResourceDefinition, RuntimeResourceRegistry } from './resource-registry-types.js'
import { claimCleanup, createCleanupRecord, createEntry, runCleanup, type CleanupRecord, type RuntimeEntry } from './runtime-cleanup.js'
import { RUNTIME_CONTEXT_FIELD } from './runtime-context-field.js'
import { runtimeScope } from './runtime-scope.js'

const marker = Symbol.for('spindle.runtime-store')
let nextStoreId = 1

/** The string keys of a runtime state type. */
export type RuntimeStoreKey<T> = Extract<keyof T, string>

declare const noExplicitType: unique symbol
/** The default of `get`/`require`'s value parameter: "no type given, use the state type". */
type NoExplicitType = typeof noExplicitType

/**
 * What `get`/`require` return: the state's type for the key, or the type given explicitly
 * (`runtime.require<Workbook>('workbook')`, as the seeds write it on untyped runtimes).
 */
export type RuntimeValue<T, K extends keyof T, V> = [V] extends [NoExplicitType] ? T[K] : V

/** Called with the value it was registered for (or `undefined` when the key was never set) and the key. */
export type RuntimeCleanupHandler<V = unknown> = (value: V | undefined, key: string) => unknown

/**
 * Options of `new RuntimeStore(options)`: initial values, resources for `load()`, and a name for error messages.
 *
 * @example
 * const runtime = new RuntimeStore<{ userId: string }>({ defaults: { userId: 'u-1' }, name: 'request' })
 */
export interface RuntimeStoreOptions<T extends object = Record<string, unknown>> {
  /** Initial values. */
  defaults?: Partial<T>
  /** Resources for `load()` that take precedence over the AgentRuntime's and the module-level ones. */
  resources?: RuntimeResourceRegistry
  /** Shown in error messages (default `runtime-<n>`). */
  name?: string
}

/** Options of `RuntimeStore.snapshot(options)`: whether the child shares the parent's pending cleanups. */
export interface RuntimeSnapshotOptions {
  /**
   * `true` (default): the child shares the parent's pending cleanups, and whichever of them disposes first
   * runs them (the per-request clone). `false`: the child sees the values but owns none of the parent's
   * cleanups, so disposing it releases only what was registered on it (a nested call borrowing the caller's state).
   */
  inheritCleanups?: boolean
}

/** Options of `RuntimeStore.run(callback, options)`: the resource registry `load()` uses inside the callback. */
export interface RuntimeRunOptions {
  /** An ambient resource registry for `load()` inside the callback (the kernel passes `Extensions.runtimeResources`). */
  resources?: RuntimeResourceRegistry
}

type ContextWithRuntime<B> = (B extends object ? B : {}) & { [RUNTIME_CONTEXT_FIELD]?: RuntimeStore<any> }

/**
 * A typed, request-isolated key/value store with Map semantics, cleanups and AsyncLocalStorage binding.
 *
 * @example
 * const runtime = new RuntimeStore<{ workbook: Workbook }>()
 * runtime.set('workbook', await loadWorkbook(payload))
 * runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
 * await agent.generate({ prompt: 'Summarize the sheet', runtime }) // cleanups run when the request ends
 */
export class RuntimeStore<T extends object = Record<string, unknown>> {
  readonly [marker] = true
  /** The store this one is a snapshot of. */
  readonly parent: RuntimeStore<T> | undefined
  readonly name: string
  /** This runtime's own resource registry (inherited by snapshots); looked up before any other. */
  resources: RuntimeResourceRegistry | undefined

  #entries = new Map<string, RuntimeEntry>()
  /** Cleanups this store owns, in registration order (shared records with its family). */
  #cleanups: CleanupRecord[] = []
  /** Cleanups registered on a key with no value yet: bound to the next value this store sets there. */
  readonly #unbound = new Map<string, CleanupRecord[]>()

  constructor(options: RuntimeStoreOptions<T> = {}) {
    this.parent = undefined
    this.name = options.name ?? `runtime-${nextStoreId++}`
    this.resources = options.resources
    if (options.defaults) {
      for (const [key, value] of Object.entries(options.defaults)) this.#entries.set(key, createEntry(key, value))
    }
  }

  /** The value, or `undefined` when absent. Throws `DisposedValueError` when its cleanup already ran. */
  get<V = NoExplicitType, K extends RuntimeStoreKey<T> = RuntimeStoreKey<T>>(key: K): RuntimeValue<T, K, V> | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    return this.#live(entry).value as RuntimeValue<T, K, V>
  }

  /** The value, or a `RuntimeStoreError` naming the key and listing the keys present. */
  require<V = NoExplicitType, K extends RuntimeStoreKey<T> = RuntimeStoreKey<T>>(key: K): RuntimeValue<T, K, V> {
    const entry = this.#entries.get(key)
    if (entry && this.#live(entry).value !== undefined) return entry.value as RuntimeValue<T, K, V>
    const present = this.keys()
    throw new RuntimeStoreError(
      `[spindle/core] runtime value "${key}" is missing from ${this.name}. Keys present: ${present.length ? present.join(', ') : '(none)'}. ` +
        `Set it with runtime.set("${key}", value) or runtime.load(…) before the request, and pass the runtime to generate()/stream().`,
      { details: { key, keys: present, runtime: this.name } },
    )
  }

  /** Sets a value in this store only (snapshots and the parent never see it). Returns `this`. */
  set<K extends RuntimeStoreKey<T>>(key: K, value: T[K]): this {
    const entry = createEntry(key, value)
    this.#entries.set(key, entry)
    const waiting = this.#unbound.get(key)
    if (waiting) {
      this.#unbound.delete(key)
      for (const record of waiting) if (record.state === 'pending') record.entries.push(entry)
    }
    return this
  }

  /** Whether a live (not disposed) value is present. */
  has(key: RuntimeStoreKey<T> | (string & {})): boolean {
    const entry = this.#entries.get(key)
    return entry !== undefined && entry.disposedAt === undefined
  }

  /** Removes the value from this store (its cleanups stay registered and run on `dispose()`). */
  delete(key: RuntimeStoreKey<T> | (string & {})): boolean {
    return this.#entries.delete(key)
  }

  /** Removes every value from this store (cleanups stay registered). */
  clear(): void {
    this.#entries.clear()
  }

  /** The keys holding a live value. */
  keys(): string[] {
    const keys: string[] = []
    for (const [key, entry] of this.#entries) if (entry.disposedAt === undefined) keys.push(key)
    return keys
  }

  get size(): number {
    return this.keys().length
  }

  /** The keys of cleanups this store would run on `dispose()` (none once its family ran them). */
  pendingCleanups(): string[] {
    return this.#cleanups.filter((record) => record.state === 'pending').map((record) => record.key)
  }

  /**
   * Registers a cleanup for `key`, run on `dispose()` of this store or of any snapshot sharing it — exactly once.
   * It releases the value `key` holds now (or, when empty, the next value this store sets there) and is called with it.
   * Once it has run, that value fails to read (`DisposedValueError`) in every store that held it.
   */
  onCleanup<K extends RuntimeStoreKey<T>>(key: K, handler: RuntimeCleanupHandler<T[K]>): this {
    if (typeof handler !== 'function') throw new RuntimeStoreError(`[spindle/core] onCleanup("${key}") needs a function`)
    const entry = this.#entries.get(key)
    const live = entry !== undefined && entry.disposedAt === undefined
    const record = createCleanupRecord(key, (value) => handler(value as T[K] | undefined, key), live ? [entry] : [])
    this.#cleanups.push(record)
    if (!live) this.#unbound.set(key, [...(this.#unbound.get(key) ?? []), record])
    return this
  }

  /**
   * A child holding the same values, whose parent is this store. Writes in the child stay in the child.
   * By default it shares this store's pending cleanups (see `RuntimeSnapshotOptions`).
   */
  snapshot(options: RuntimeSnapshotOptions = {}): RuntimeStore<T> {
    const child = new RuntimeStore<T>({ name: `${this.name}/${nextStoreId++}`, resources: this.resources })
    ;(child as { parent: RuntimeStore<T> | undefined }).parent = this
    child.#entries = new Map(this.#entries)
    if (options.inheritCleanups !== false) child.#cleanups = this.#cleanups.filter((record) => record.state === 'pending')
    return child
  }

  /** Runs `callback` with this store bound to AsyncLocalStorage (`RuntimeStore.current()` returns it anywhere below). */
  run<R>(callback: (store: this) => R, options: RuntimeRunOptions = {}): R {
    const outer = runtimeScope.getStore()
    return runtimeScope.run({ store: this, resources: options.resources ?? outer?.resources }, () => callback(this))
  }

  /**
   * Runs every pending cleanup (last registered first, one after another), waits for cleanups of this store
   * that another family member is running, then clears the values (a disposed value stays as a tombstone
   * that fails to read). Every handler runs even when some throw; failures are rethrown together as one
   * `AggregateError` — always an `AggregateError`, even for a single failure, so callers handle one shape.
   */
  async dispose(): Promise<void> {
    const at = new Date()
    const records = this.#cleanups
    this.#cleanups = []
    this.#unbound.clear()
    const claimed: CleanupRecord[] = []
    const elsewhere: Promise<void>[] = []
    for (let index = records.length - 1; index >= 0; index--) {
      const record = records[index]!
      if (claimCleanup(record, this.name, at)) claimed.push(record)
      else if (record.state === 'running' && record.completion) elsewhere.push(record.completion)
    }
    const failures: Array<{ key: string; error: unknown }> = []
    for (const record of claimed) {
      const outcome = await runCleanup(record)
      if (outcome.failed) failures.push({ key: record.key, error: outcome.error })
    }
    await Promise.all(elsewhere)
    for (const [key, entry] of this.#entries) if (entry.disposedAt === undefined) this.#entries.delete(key)
    if (failures.length) {
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `[spindle/core] ${failures.length} runtime cleanup(s) of ${this.name} failed (keys: ${failures.map((failure) => failure.key).join(', ')}); every other cleanup ran`,
      )
    }
  }

  /**
   * Loads a resource declared with `registerRuntimeResource` (or a scoped registry): calls its loader with
   * `source` and this store, stores the value under `name` unless the loader stored it itself, and registers
   * the resource's `dispose` as a cleanup of that value (run at the end of the request).
   * Lookup: this runtime's `resources` > the running AgentRuntime's `Extensions.runtimeResources` > module-level.
   */
  async load<V = unknown>(name: string, source?: unknown): Promise<V> {
    const definition = this.#resolveResource(name)
    const before = new Map(this.#entries)
    let value: unknown
    try {
      value = await definition.loader(source, this)
    } catch (error) {
      throw new RuntimeStoreError(`[spindle/core] runtime resource "${name}" failed to load: ${(error as Error)?.message ?? String(error)}`, {
        cause: error,
        details: { resource: name },
      })
    }
    const stored: RuntimeEntry[] = []
    if (value !== undefined) {
      for (const [key, entry] of this.#entries) if (before.get(key) !== entry && entry.value === value) stored.push(entry)
      if (stored.length === 0) {
        this.set(name as RuntimeStoreKey<T>, value as T[RuntimeStoreKey<T>])
        stored.push(this.#entries.get(name)!)
      }
    }
    const dispose = definition.dispose
    if (dispose) this.#cleanups.push(createCleanupRecord(stored[0]?.key ?? name, () => dispose.call(definition, value), stored))
    return value as V
  }

  #resolveResource(name: string): RuntimeResourceDefinition {
    const ambient = runtimeScope.getStore()?.resources
    const found = this.resources?.get(name) ?? ambient?.get(name) ?? moduleRuntimeResources.get(name)
    if (found) return found
    const known = [
      ...(this.resources?.names().map((known) => `${known} (runtime)`) ?? []),
      ...(ambient?.names().map((known) => `${known} (agent runtime)`) ?? []),
      ...moduleRuntimeResources.names().map((known) => `${known} (module)`),
    ]
    throw new RuntimeStoreError(
      `[spindle/core] no runtime resource named "${name}". Registered: ${known.length ? known.join(', ') : '(none)'}. Declare it with registerRuntimeResource("${name}", { loader, dispose }).`,
      { details: { resource: name } },
    )
  }

  #live(entry: RuntimeEntry): RuntimeEntry {
    if (entry.disposedAt === undefined) return entry
    throw new DisposedValueError(
      `[spindle/core] runtime value "${entry.key}" was disposed at ${entry.disposedAt.toISOString()} (its cleanup ran when ${entry.disposedBy} was disposed, at the end of a request). ` +
        'Set it again, or share a long-lived value without a cleanup and dispose it yourself.',
      { details: { key: entry.key, disposedAt: entry.disposedAt.toISOString(), disposedBy: entry.disposedBy } },
    )
  }

  /** The store bound by the nearest enclosing `run()`, if any. */
  static current<S extends object = Record<string, unknown>>(): RuntimeStore<S> | undefined {
    return runtimeScope.getStore()?.store as RuntimeStore<S> | undefined
  }

  /** Like `current()`, but throws a `RuntimeStoreError` when no runtime is active. */
  static requireCurrent<S extends object = Record<string, unknown>>(): RuntimeStore<S> {
    const store = RuntimeStore.current<S>()
    if (store) return store
    throw new RuntimeStoreError(
      '[spindle/core] no RuntimeStore is active here. Pass { runtime } to agent.generate()/stream(), or wrap the call in runtime.run(…) or withRuntime(runtime, …).',
    )
  }

  /** Runs `callback` with an ambient resource registry for `load()`, keeping the current store. */
  static runWithResources<R>(resources: RuntimeResourceRegistry | undefined, callback: () => R): R {
    const outer = runtimeScope.getStore()
    return runtimeScope.run({ store: outer?.store, resources: resources ?? outer?.resources }, callback)
  }

  /** True for a RuntimeStore, even one from another copy of @spindle/core. */
  static isInstance(value: unknown): value is RuntimeStore<any> {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true
  }

  /** Returns a copy of `base` carrying `runtime` under `RUNTIME_CONTEXT_FIELD` (`base` itself when there is no runtime). */
  static mergeExperimentalContext<B>(base: B, runtime: RuntimeStore<any> | undefined): ContextWithRuntime<B> {
    const object = (typeof base === 'object' && base !== null ? base : {}) as ContextWithRuntime<B>
    if (!runtime) return object
    return { ...object, [RUNTIME_CONTEXT_FIELD]: runtime }
  }

  /** The runtime carried by a context object: its `RUNTIME_CONTEXT_FIELD`, else its `runtime` field, else the object itself. */
  static resolveFromExperimentalContext<S extends object = Record<string, unknown>>(context: unknown): RuntimeStore<S> | undefined {
    if (typeof context !== 'object' || context === null) return undefined
    if (RuntimeStore.isInstance(context)) return context as RuntimeStore<S>
    const record = context as Record<string, unknown>
    for (const candidate of [record[RUNTIME_CONTEXT_FIELD], record.runtime]) {
      if (RuntimeStore.isInstance(candidate)) return candidate as RuntimeStore<S>
    }
    return undefined
  }
}

// The context spec names the run's RuntimeStore without importing it (spec/ imports no other folder): this fills it in.
declare module '../spec/context-adapter.js' {
  interface ContextBuildTypes {
    runtime: RuntimeStore
  }
}

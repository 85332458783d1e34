// Placeholder surface of the request-scoped RuntimeStore (replaced by the full implementation of DESIGN §2.4).
import { AsyncLocalStorage } from 'node:async_hooks'

const storage = new AsyncLocalStorage<RuntimeStore<any>>()

export class RuntimeStore<T extends Record<string, unknown> = Record<string, unknown>> {
  readonly #values = new Map<keyof T, unknown>()
  get<K extends keyof T>(key: K): T[K] | undefined {
    return this.#values.get(key) as T[K] | undefined
  }
  set<K extends keyof T>(key: K, value: T[K]): this {
    this.#values.set(key, value)
    return this
  }
  snapshot(): RuntimeStore<T> {
    const child = new RuntimeStore<T>()
    for (const [key, value] of this.#values) child.#values.set(key, value)
    return child
  }
  run<R>(callback: () => R): R {
    return storage.run(this, callback)
  }
  async dispose(): Promise<void> {
    this.#values.clear()
  }
  static current(): RuntimeStore<any> | undefined {
    return storage.getStore()
  }
}

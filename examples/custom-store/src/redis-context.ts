// What every Redis store shares: the client, the key prefix that isolates one bundle's data, and error mapping.
import { SpindleError, StoreError } from '@spindle/core'
import type { Redis } from 'ioredis'

export class RedisContext {
  constructor(
    readonly redis: Redis,
    readonly prefix: string,
  ) {}

  /** `prefix:part:part…`; parts are JSON-encoded when they could contain the separator. */
  key(...parts: string[]): string {
    return [this.prefix, ...parts.map((part) => (/^[\w.-]*$/.test(part) ? part : JSON.stringify(part)))].join(':')
  }
}

/** A native Redis or network error as a StoreError that says what to check; Spindle errors pass through. */
export function toStoreError(error: unknown): unknown {
  if (SpindleError.isInstance(error)) return error
  return new StoreError(`[spindle-store-redis] ${(error as Error)?.message ?? error}. Check that Redis (7+) is reachable and accepts Lua scripts (EVAL).`, {
    cause: error,
  })
}

/** Wraps every async method of a store so that what it rejects with is mapped by `toStoreError`. */
export function withStoreErrors<S extends object>(store: S): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args)
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toStoreError(error))) : result
      }
    },
  })
}

/** Parses a stored JSON value, or undefined for a missing key. */
export function parse<T>(text: string | null | undefined): T | undefined {
  return text == null ? undefined : (JSON.parse(text) as T)
}

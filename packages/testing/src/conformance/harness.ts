// The plumbing shared by every conformance suite: fresh stores per check, cleanup, skips, vitest registration.
import { describe, it } from 'vitest'
import { withSkipKey } from './rule.js'

/** What a check receives: factories for fresh, empty stores (tracked and cleaned up after the check). */
export interface StoreHarness<S> {
  /** A new store that shares no data with any other `create()` result. */
  create(): Promise<S>
  /** A second connection to the same data as `store` (only for implementations with connections). */
  secondConnection?: (store: S) => Promise<S>
}

/** One conformance check: a plain async function, usable without vitest. */
export type ConformanceCheck<S> = (harness: StoreHarness<S>) => Promise<void>

/** Checks keyed by id (`session.append.gap-free`); the ids are the test names and the keys of `skip`. */
export type ConformanceChecks<S> = Record<string, ConformanceCheck<S>>

/** Options of the store conformance suites (`describeStores`, `describeRunStore`…): how to create and clean up a fresh store, and which checks to skip, each with its reason. */
export interface StoreSuiteOptions<S> {
  /** Returns a fresh, empty store. Called once or more per check. */
  create: () => S | Promise<S>
  /** Releases a store (close a connection, delete a temp file). Called for every store created, second connections first. */
  cleanup?: (store: S) => void | Promise<void>
  /**
   * Checks to skip, with the reason printed in the test name. A key matches a check id (the test name), or every
   * check under it (`'embedding.query'` skips `embedding.query.filter`…). A rule id is not a key: a failure names
   * the check that ran the rule (`… (check run.list.newest-first — skip it with that id)`).
   */
  skip?: Record<string, string>
  /** Opens a second connection to the data of `store` (synchronously or not, like `create`); enables the `*.two-connections` checks. */
  createSecondConnection?: (store: S) => S | Promise<S>
}

/** Checks whose id ends with this need `createSecondConnection`. */
export const twoConnectionsSuffix = '.two-connections'

/** Builds a harness from suite options, selecting one store out of what `create` returns (a bundle or the store itself). */
export function createHarness<B, S>(
  options: Omit<StoreSuiteOptions<B>, 'skip'>,
  select: (bundle: B) => S,
): { harness: StoreHarness<S>; dispose(): Promise<void> } {
  const primaries: B[] = []
  const seconds: B[] = []
  const owners = new Map<S, B>()
  const harness: StoreHarness<S> = {
    async create() {
      const bundle = await options.create()
      primaries.push(bundle)
      const store = select(bundle)
      owners.set(store, bundle)
      return store
    },
  }
  const second = options.createSecondConnection
  if (second !== undefined) {
    harness.secondConnection = async (store) => {
      const owner = owners.get(store)
      if (owner === undefined) throw new Error('secondConnection() needs a store returned by create() in the same check')
      const bundle = await second(owner)
      seconds.push(bundle)
      return select(bundle)
    }
  }
  return {
    harness,
    async dispose() {
      const errors: unknown[] = []
      for (const bundle of [...seconds.reverse(), ...primaries.reverse()]) {
        try {
          await options.cleanup?.(bundle)
        } catch (error) {
          errors.push(error)
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, 'conformance cleanup failed')
    },
  }
}

/** The skip reason for a check id, if any key of `skip` matches it. */
export function skipReason(id: string, skip: Record<string, string> | undefined): string | undefined {
  if (skip === undefined) return undefined
  for (const [key, reason] of Object.entries(skip)) if (id === key || id.startsWith(`${key}.`)) return reason
  return undefined
}

/** Runs one check with a fresh harness and cleans up whatever it created. */
export async function runCheck<B, S>(check: ConformanceCheck<S>, options: Omit<StoreSuiteOptions<B>, 'skip'>, select: (bundle: B) => S): Promise<void> {
  const { harness, dispose } = createHarness(options, select)
  try {
    await check(harness)
  } finally {
    await dispose()
  }
}

/**
 * Runs the check registered as `id`: a broken rule's message also names the check, the key `skip` takes.
 */
export async function runRegisteredCheck<B, S>(
  id: string,
  check: ConformanceCheck<S>,
  options: Omit<StoreSuiteOptions<B>, 'skip'>,
  select: (bundle: B) => S,
): Promise<void> {
  try {
    await runCheck(check, options, select)
  } catch (error) {
    throw withSkipKey(error, 'check', id)
  }
}

/** Registers one vitest `describe` with an `it` per check (skips carry their reason in the test name). */
export function registerChecks<B, S>(
  title: string,
  checks: ConformanceChecks<S>,
  options: StoreSuiteOptions<B>,
  select: (bundle: B) => S,
  timeoutMs?: number,
): void {
  describe(title, () => {
    for (const [id, check] of Object.entries(checks)) {
      const reason =
        skipReason(id, options.skip) ??
        (id.endsWith(twoConnectionsSuffix) && options.createSecondConnection === undefined
          ? 'needs createSecondConnection (this store has no separate connections)'
          : undefined)
      if (reason !== undefined) it.skip(`${id} (skipped: ${reason})`, () => {})
      else it(id, () => runRegisteredCheck(id, check, options, select), timeoutMs)
    }
  })
}

// The kernel's speed work, in one place. Two tricks keep a step on the memory stores near the cost of a bare loop:
//
// 1. Sync-or-async: the hot calls of a step (context build, approval check, journal writes, commits) return their
//    value directly when they could finish synchronously (the memory stores, synchronous tools and adapters), and a
//    promise only when they could not. The loop awaits only a promise (`isPending`): an `await` of a plain value
//    still costs a microtask round, several per step.
// 2. Kept shapes: V8 keeps a hidden class (the "map" all objects with the same fields share) only while some object
//    has it. Between two runs no per-run object exists: a major GC drops their maps, the next run's objects get new
//    ones, every inline cache of the hot methods misses and V8 restarts their tier-up (measured: a 100-step run took
//    2.2x as long after each full GC, 45 vs 21 µs per step). `keepShape` holds one instance of each per-run class for
//    the module's lifetime, built on empty inputs and never run (shape-keeper.test.ts checks real runs share it).

/** A value that is there now, or a promise of it (see the file comment). */
export type MaybePromise<T> = T | Promise<T>

/** Whether a sync-or-async result must be awaited. */
export function isPending<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise
}

const keptShapes: object[] = []

/** Keeps `instance` (and the maps of everything it holds) alive for the process's lifetime; returns it. */
export function keepShape<T extends object>(instance: T): T {
  keptShapes.push(instance)
  return instance
}

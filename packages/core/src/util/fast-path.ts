// The kernel's speed work, in one place. Two tricks keep a step on the memory stores near the cost of a bare loop:
//
// 1. Sync-or-async: the hot calls of a step (context build, approval check, journal writes, commits) return their
//    value directly when they could finish synchronously (the memory stores, synchronous tools and adapters), and a
//    promise only when they could not. The loop awaits only a promise (`isPending`): an `await` of a plain value
//    still costs a microtask round, several per step.
// 2. Shapes that survive a major GC. V8 keeps a hidden class (the "map" objects with the same fields share) only
//    while something holds it, and it holds a class instance's map weakly (the transition from the constructor's
//    initial map): once no instance is alive, a full GC drops it, deoptimizes the code compiled against it ("weak
//    objects" in --trace-deopt) and clears the inline caches that saw it, and the next run re-creates each field's map
//    transition through a runtime call. An object literal's map is held by its allocation site for as long as the
//    function that builds it, so per-run records the runtime builds are single literals with every field
//    (`runExecutionDeps`, the events), and what a run needs from Node is shared where it can be (one timer for every
//    run's timeout and lease heartbeat: run-timers.ts). The run's own parts are still class instances: `keepShape`
//    holds one instance of each for the module's lifetime, built on empty inputs and never run (shape-keeper.test.ts).
//    It is a workaround, and a partial one: after the first real run V8 deprecates RunExecution's kept map (a field's
//    representation changes), so only the maps of the parts it holds are kept. Measured 2026-12-06 without the keepers,
//    a run right after a full GC took about 1.3x as long at N = 1 and 10; no per-run class instance is the real fix.

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

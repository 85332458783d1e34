// The kernel's speed work, in one place. Two tricks keep a step on the memory stores near the cost of a bare loop:
//
// 1. Sync-or-async: the hot calls of a step (context build, approval check, journal writes, commits) return their
//    value directly when they could finish synchronously (the memory stores, synchronous tools and adapters), and a
//    promise only when they could not. The loop awaits only a promise (`isPending`): an `await` of a plain value
//    still costs a microtask round, several per step.
// 2. Shapes that survive a major GC. V8 keeps a hidden class (the "map" objects with the same fields share) only
//    while something holds it, and it holds a class instance's map weakly (the transition from the constructor's
//    initial map): once no instance is alive, a full GC can drop it, deoptimize the code compiled against it ("weak
//    objects" in --trace-deopt) and clear the inline caches that saw it, and the next run re-creates each field's map
//    transition through a runtime call. An object literal's map is held by its allocation site for as long as the
//    function that builds it. So a run's parts are literals, each built whole by one factory (`runExecution`,
//    `runContext`, `runEvents`, `runCommit`, `runJournal`, `modelRequestBuilder`, `stepWriter`, `eventBuffer`,
//    `seqReservation`, `toolScope`), their methods own properties taken from a class that only holds them (its
//    fields `declare`d, never constructed: `new RunExecution(…)` and `new ToolScope(…)` return the literal); the per-run
//    records are single literals with every field (`runExecutionDeps`, the events); and what a run needs from Node
//    is shared where it can be (one timer for every run's timeout and lease heartbeat: run-timers.ts). No object is
//    kept alive to hold a map (run-part-shapes.test.ts checks the parts are literals and their code survives a GC).
//    A field must keep its representation: one that changes from a small integer to a double gives the literal a
//    new map that nothing holds (start such a field at -0).

/** A value that is there now, or a promise of it (see the file comment). */
export type MaybePromise<T> = T | Promise<T>

/** Whether a sync-or-async result must be awaited. */
export function isPending<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise
}

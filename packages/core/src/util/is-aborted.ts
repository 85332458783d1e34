// `signal.aborted`, read in a function of its own. Node gives every AbortSignal its own hidden class, so the
// inline cache of any read of `.aborted` goes polymorphic, then megamorphic, and a major GC sends it back to the
// start; in a large function (a step method) each such change restarts V8's count towards optimizing the whole
// function. Here the churn stays in a two-line function that is optimized again at once.
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted
}

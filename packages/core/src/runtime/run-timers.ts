// A run's timers (its timeout, its lease heartbeat) on one shared Node timer. A timer per run (`setTimeout` or
// `setInterval` at its start, cleared at its end) cost each run Node `Timeout` objects and timer-list operations, and
// after a major GC that no `Timeout` survived, the first run re-created their hidden classes. Here a run registers
// when its timer is due, and one Node timer, armed for the earliest, fires whichever are due.

/** A run's timer, as `startRunTimer` registered it. */
export interface RunTimer {
  /** When it is due next (`Date.now()` time: test fake timers move it). */
  at: number
  /** Its period for a repeating timer, 0 for a one-off. */
  every: number
  fire: () => void
}

const timers = new Set<RunTimer>()
let timer: ReturnType<typeof setTimeout> | undefined = undefined
/** The time the Node timer is armed for, and the `setTimeout` and `clearTimeout` it was armed with (fake timers swap them). */
let armedAt = Infinity
let armedWith: typeof setTimeout | undefined = undefined
let clearArmed: typeof clearTimeout = clearTimeout

/** Calls `fire` once `delayMs` have passed (and every `everyMs` after that, when given), until `stopRunTimer`. */
export function startRunTimer(delayMs: number, fire: () => void, everyMs = 0): RunTimer {
  const runTimer: RunTimer = { at: Date.now() + delayMs, every: everyMs, fire }
  timers.add(runTimer)
  // Runs with the same policy start their timers in the order they are due: a later one never moves the Node timer.
  if (runTimer.at < armedAt || armedWith !== setTimeout) arm(runTimer.at)
  return runTimer
}

/** The run is over: its timer no longer fires (the Node timer stays armed; it re-arms or stops when it fires). */
export function stopRunTimer(runTimer: RunTimer): void {
  timers.delete(runTimer)
}

function arm(at: number): void {
  if (timer !== undefined) clearArmed(timer)
  armedAt = at
  armedWith = setTimeout
  clearArmed = clearTimeout
  // At most 2^31 - 1 ms (Node fires a longer delay after 1 ms): a later time re-arms when this one fires.
  timer = setTimeout(expire, Math.min(2 ** 31 - 1, Math.max(1, Math.ceil(at - Date.now()))))
  timer.unref?.()
}

function expire(): void {
  timer = undefined
  armedAt = Infinity
  const now = Date.now()
  const due: RunTimer[] = []
  let next = Infinity
  for (const runTimer of timers) {
    if (runTimer.at <= now) {
      due.push(runTimer)
      if (runTimer.every > 0) runTimer.at = now + runTimer.every
      else timers.delete(runTimer)
    }
    if (timers.has(runTimer) && runTimer.at < next) next = runTimer.at
  }
  if (next !== Infinity) arm(next)
  for (const runTimer of due) {
    try {
      runTimer.fire()
    } catch {
      // A run's timer callback never breaks another run's.
    }
  }
}

// notifyObservers: how the runtime calls the RuntimeObservers (spec/runtime-observer.ts) with each event.
import type { AgentEvent } from '../spec/events.js'
import type { RuntimeObserver } from '../spec/runtime-observer.js'

/** Calls each observer; an observer's error is dropped so that it never breaks the run. */
export function notifyObservers(observers: readonly RuntimeObserver[] | undefined, event: AgentEvent): void {
  if (!observers) return
  for (let index = 0; index < observers.length; index++) {
    try {
      observers[index]!.onEvent(event)
    } catch {
      // An observer must never break a run: its failure is its own.
    }
  }
}

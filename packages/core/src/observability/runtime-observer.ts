// RuntimeObserver: a synchronous hook that sees every event a run emits (after redaction), for tracing and metrics.
import type { AgentEvent } from '../spec/events.js'

/**
 * Called synchronously for every event, in order, on every run of the runtime (sub-agents included).
 * Unlike `subscribe()` it never drops events, so it suits tracing; it must be cheap, and it must not throw
 * (an error is caught and dropped: an observer never breaks a run).
 *
 * @example
 * extensions.addObserver({ onEvent: (event) => { if (event.type === 'run.finished') console.log(event.usage) } })
 */
export interface RuntimeObserver {
  onEvent(event: AgentEvent): void
}

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

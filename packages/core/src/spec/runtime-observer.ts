// RuntimeObserver: a synchronous hook that sees every event a run emits (after redaction), for tracing and metrics.
import type { AgentEvent } from './events.js'

/**
 * Called synchronously for every event, in order, on every run of the runtime (sub-agents included), spec v1.
 * Unlike `subscribe()` it never drops events, so it suits tracing; it must be cheap, and it must not throw
 * (an error is caught and dropped: an observer never breaks a run).
 *
 * @example
 * extensions.addObserver({ specificationVersion: 'v1', onEvent: (event) => { if (event.type === 'run.finished') console.log(event.usage) } })
 */
export interface RuntimeObserver {
  /**
   * The spec version the observer implements. Packages set it (the conformance kit checks it); an observer written
   * inline may leave it out, which means `'v1'`. Any other value is refused by `addObserver`.
   */
  readonly specificationVersion?: 'v1'
  onEvent(event: AgentEvent): void
}

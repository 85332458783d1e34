// EventBus, spec v1: the broadcast channel behind `runtime.subscribe()` (in-process by default, PostgreSQL across processes).
import type { AgentEvent, LaggedEvent } from './events.js'

/** A subscription's filter, bounded buffer (`capacity`) and stop signal. */
export interface SubscribeOptions {
  /** Only events matching this filter are delivered (and counted against capacity). */
  filter?: (event: AgentEvent) => boolean
  /** How many undelivered events the subscriber may hold before the oldest are dropped (default 256). */
  capacity?: number
  signal?: AbortSignal
}

/** Spec v1: the broadcast channel behind `runtime.subscribe()`. A slow subscriber never blocks a run: it loses the oldest events and gets a `lagged` event. */
export interface EventBus {
  readonly specificationVersion: 'v1'
  /** Never blocks the publisher on a slow subscriber. */
  publish(event: AgentEvent): void
  subscribe(options?: SubscribeOptions): AsyncIterable<AgentEvent | LaggedEvent>
  close?(): Promise<void> | void
}

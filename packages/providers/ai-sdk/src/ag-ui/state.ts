// The AG-UI state of a Spindle run: the JSON values of its RuntimeStore. A run works on a clone of the request's
// store (writes made by its tools stay in that clone), visible only inside the run; the recorder, a runtime
// observer, reads it there — when the run starts and after each event that can follow a change (a tool's result or
// error, a step's end, the run's end) — and keeps each distinct state with the event's seq until the AG-UI mapper
// reaches that event.
import { RuntimeStore, type AgentEvent, type RuntimeObserver } from '@spindle/core'

/** Where `fromRunAgentInput`'s store keeps the client tools' results (never part of the AG-UI state). */
export const clientToolResultsKey = 'agUi.clientToolResults'

/** Gives the state to show with an event, or `undefined` when it is not known (the mapper then keeps what it had). */
export type AgUiStateSource = (event: AgentEvent) => Record<string, unknown> | undefined

/** Options of `readRuntimeState(store, options)`: the RuntimeStore keys shown to an AG-UI client as its state. */
export interface ReadRuntimeStateOptions {
  /** The keys that are AG-UI state (default: every key whose value serializes to JSON). */
  keys?: readonly string[]
}

/**
 * The store's values as a JSON object (copies, so later changes of the values never alter it). A key whose value
 * does not serialize (a function, a cycle, a BigInt) is left out.
 *
 * @example
 * readRuntimeState(new RuntimeStore({ defaults: { todos: ['buy milk'] } })) // { todos: ['buy milk'] }
 */
export function readRuntimeState(store: RuntimeStore<any>, options: ReadRuntimeStateOptions = {}): Record<string, unknown> {
  const state: Record<string, unknown> = {}
  for (const key of options.keys ?? store.keys()) {
    if (key === clientToolResultsKey || !store.has(key)) continue
    let json: string | undefined
    try {
      json = JSON.stringify(store.get(key))
    } catch {
      continue
    }
    if (json !== undefined) state[key] = JSON.parse(json)
  }
  return state
}

/** Events after which the state is read: where a change made by a tool or by application code can show. */
const stateEventTypes = new Set(['run.started', 'run.resumed', 'tool.result', 'tool.error', 'step.finished', 'run.finished', 'run.failed'])

/**
 * Options of `new AgUiStateRecorder(options)`: which RuntimeStore keys are AG-UI state (see `ReadRuntimeStateOptions`)
 * and how many runs' states are kept at most.
 */
export interface AgUiStateRecorderOptions extends ReadRuntimeStateOptions {
  /** Runs whose states are kept at most (default 1000; the oldest run's are dropped first). */
  maxRuns?: number
}

/**
 * Records each run's RuntimeStore state for `toAgUiEvents` (`state: recorder.stateAt`). Add it to the runtime's
 * extensions before the runs start; a run's records are dropped once its terminal event was mapped.
 *
 * @example
 * const recorder = new AgUiStateRecorder({ keys: ['todos'] })
 * const runtime = new AgentRuntime(new Extensions().addObserver(recorder))
 * return toAgUiResponse(runtime.stream({ ...request, runtime: store }), { state: recorder.stateAt })
 */
export class AgUiStateRecorder implements RuntimeObserver {
  /** The runtime-observer spec this recorder implements. */
  readonly specificationVersion = 'v1' as const
  readonly #options: ReadRuntimeStateOptions
  readonly #maxRuns: number
  readonly #runs = new Map<string, Array<{ seq: number; json: string; state: Record<string, unknown> }>>()

  constructor(options: AgUiStateRecorderOptions = {}) {
    this.#options = options.keys !== undefined ? { keys: options.keys } : {}
    this.#maxRuns = options.maxRuns ?? 1000
  }

  /** Called by the runtime inside the run, where `RuntimeStore.current()` is the run's store. */
  onEvent(event: AgentEvent): void {
    if (event.parentRunId !== undefined || !stateEventTypes.has(event.type)) return
    const store = RuntimeStore.current()
    const state = store ? readRuntimeState(store, this.#options) : {}
    const json = JSON.stringify(state)
    let records = this.#runs.get(event.runId)
    if (records === undefined) {
      if (this.#runs.size >= this.#maxRuns) this.#runs.delete(this.#runs.keys().next().value!)
      records = []
      this.#runs.set(event.runId, records)
    }
    if (records.at(-1)?.json !== json) records.push({ seq: event.seq, json, state })
  }

  /** The state as recorded at `event` (the last record at or before its seq); pass it as `toAgUiEvents`' `state`. */
  readonly stateAt: AgUiStateSource = (event) => {
    const records = this.#runs.get(event.runId)
    if (records === undefined) return undefined
    if (event.type === 'run.finished' || event.type === 'run.failed') this.#runs.delete(event.runId)
    while (records.length > 1 && records[1]!.seq <= event.seq) records.shift()
    const first = records[0]
    return first !== undefined && first.seq <= event.seq ? first.state : undefined
  }
}

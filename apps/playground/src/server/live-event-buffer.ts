// LiveEventBuffer: the events this process's runs emitted that are not in their run's log yet (the kernel logs a
// step's events when the step ends), kept in memory so that an SSE client connecting mid-step gets them at once.
import type { AgentEvent, EventBus, LaggedEvent, RunStore, Stores, SubscribeOptions } from '@spindle/core'
import type { ResetNotice } from './run-fence.js'

/** Sent through the bus once a run's log holds every event up to `seq`. */
export interface DurableNotice {
  type: 'playground.durable'
  runId: string
  sessionId: string
  seq: number
  timestamp: number
}

/** Events kept per run at most: beyond it the oldest go (the SSE stream then fills the hole from the log). */
const maxEventsPerRun = 20_000
/** Runs kept at most: one whose log writes keep failing is forgotten once this many newer runs have unlogged events. */
const maxRuns = 500

export class LiveEventBuffer {
  readonly #byRun = new Map<string, AgentEvent[]>()
  #bus: EventBus | undefined

  /** The run's events not known to be logged yet, in seq order (a copy). */
  events(runId: string): AgentEvent[] {
    return [...(this.#byRun.get(runId) ?? [])]
  }

  #add(event: AgentEvent): void {
    let list = this.#byRun.get(event.runId)
    if (!list) {
      this.#byRun.set(event.runId, (list = []))
      if (this.#byRun.size > maxRuns) this.#byRun.delete(this.#byRun.keys().next().value!)
    }
    // A seq taken again (a run killed, then resumed) supersedes what was emitted with it before.
    while (list.length && list[list.length - 1]!.seq >= event.seq) list.pop()
    list.push(event)
    if (list.length > maxEventsPerRun) list.shift()
  }

  /** Keeps only the events above `seq` (`logged`: those up to it are in the log; else they are void). */
  #keepAbove(runId: string, seq: number, logged: boolean): void {
    const list = this.#byRun.get(runId)
    if (!list) return
    const kept = logged ? list.filter((event) => event.seq > seq) : list.filter((event) => event.seq <= seq)
    if (kept.length) this.#byRun.set(runId, kept)
    else this.#byRun.delete(runId)
  }

  /** Records every event published, and drops the void ones when a kill resets a run. */
  wrapBus(bus: EventBus): EventBus {
    this.#bus = bus
    return {
      specificationVersion: 'v1',
      publish: (event: AgentEvent) => {
        const notice = event as AgentEvent | ResetNotice
        if (notice.type === 'playground.reset') this.#keepAbove(notice.runId, notice.seq, false)
        else if (!notice.type.startsWith('playground.')) this.#add(event)
        bus.publish(event)
      },
      subscribe(options?: SubscribeOptions): AsyncIterable<AgentEvent | LaggedEvent> {
        return bus.subscribe(options)
      },
      close: () => bus.close?.(),
    }
  }

  /** Forgets events once their run's log holds them, and tells the SSE streams (`playground.durable`). */
  wrapStores(stores: Stores): Stores {
    const runs = stores.runs
    const appendEvents: RunStore['appendEvents'] = async (runId, events) => {
      await runs.appendEvents(runId, events)
      if (!events.length) return
      const seq = events.reduce((highest, event) => Math.max(highest, event.seq), 0)
      this.#keepAbove(runId, seq, true)
      const notice: DurableNotice = { type: 'playground.durable', runId, sessionId: events[0]!.sessionId, seq, timestamp: Date.now() }
      this.#bus?.publish(notice as unknown as AgentEvent)
    }
    const wrapped = new Proxy(runs, {
      get(target, property, receiver) {
        if (property === 'appendEvents') return appendEvents
        const value = Reflect.get(target, property, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    return { ...stores, runs: wrapped }
  }
}

// RunFence: "kill" a run like a crashed process. Once fenced, every store write and event of the run is
// dropped or fails, so the run stops exactly where a dead process would; `resume` then continues it.
import {
  type AgentEvent,
  type EventBus,
  type LaggedEvent,
  type SessionEntryInput,
  StoreError,
  type Stores,
  storeKinds,
  type SubscribeOptions,
} from '@spindle/core'

/** Sent through the bus after a kill: events above `seq` were never persisted and will be re-emitted. */
export interface ResetNotice {
  type: 'playground.reset'
  runId: string
  sessionId: string
  seq: number
  timestamp: number
}

type RunOf = (args: any[]) => string | undefined

const writes: Record<string, Record<string, RunOf>> = {
  sessions: { append: (args) => (args[1] as SessionEntryInput[]).find((entry) => entry.runId)?.runId },
  runs: { updateRun: (args) => args[0], claimRun: (args) => args[0], appendEvents: (args) => args[0] },
  snapshots: { save: (args) => args[0]?.runId },
  executions: { start: (args) => args[0]?.runId, finish: (args) => String(args[0]).split(':')[0] },
}

export class RunFence {
  readonly #fenced = new Set<string>()
  #all = false
  #bus: EventBus | undefined

  fence(runId: string): void {
    this.#fenced.add(runId)
  }

  /** Fences every run, for good (the server is shutting down: its runs stop where a dead process would). */
  fenceAll(): void {
    this.#all = true
  }

  isFenced(runId: string): boolean {
    return this.#all || this.#fenced.has(runId)
  }

  lift(runId: string): void {
    this.#fenced.delete(runId)
  }

  /** Tells every subscriber of the run that events above `seq` are void. */
  reset(runId: string, sessionId: string, seq: number): void {
    const notice: ResetNotice = { type: 'playground.reset', runId, sessionId, seq, timestamp: Date.now() }
    this.#bus?.publish(notice as unknown as AgentEvent)
  }

  wrapStores(stores: Stores): Stores {
    const isFenced = (runId: string) => this.isFenced(runId)
    const wrap = <T extends object>(kind: string, store: T): T => {
      const guarded = writes[kind] ?? {}
      return new Proxy(store, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver)
          if (typeof value !== 'function') return value
          const runOf = guarded[String(property)]
          if (!runOf) return value.bind(target)
          return (...args: unknown[]) => {
            const runId = runOf(args)
            if (runId && isFenced(runId)) {
              return Promise.reject(
                new StoreError(`[spindle/playground] run "${runId}" was killed or its server is shutting down; its writes are refused until it is resumed`),
              )
            }
            return value.apply(target, args)
          }
        },
      })
    }
    return Object.fromEntries(storeKinds.map((kind) => [kind, wrap(kind, stores[kind])])) as unknown as Stores
  }

  wrapBus(bus: EventBus): EventBus {
    this.#bus = bus
    const isFenced = (runId: string) => this.isFenced(runId)
    return {
      specificationVersion: 'v1',
      publish(event: AgentEvent) {
        if (!isFenced(event.runId)) bus.publish(event)
      },
      subscribe(options?: SubscribeOptions): AsyncIterable<AgentEvent | LaggedEvent> {
        return bus.subscribe(options)
      },
      close: () => bus.close?.(),
    }
  }
}

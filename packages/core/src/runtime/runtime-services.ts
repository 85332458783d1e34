// What starting, resuming and approving runs share inside one AgentRuntime: the registered (or default) stores,
// gate, bus and queue, the run-wide services, and the bookkeeping of the runs this process holds. AgentRuntime
// builds one and drives the modules that use it (start-run.ts, resume-run.ts, approval-queue.ts); none of them
// calls back into the runtime.
import { CompactionService } from '../compaction/compaction-service.js'
import { compactionBreaker } from '../compaction/compaction-breaker.js'
import { truncateCompaction } from '../compaction/truncate-compaction.js'
import type { ContextPipeline } from '../context/context-pipeline.js'
import { InProcessEventBus } from '../events/in-process-event-bus.js'
import type { Extensions } from '../extensions/extensions.js'
import { InProcessSessionGate } from '../gate/in-process-session-gate.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { EventBus } from '../spec/event-bus.js'
import type { RunQueue } from '../spec/run-queue.js'
import type { SessionGate } from '../spec/session-gate.js'
import type { Stores } from '../spec/stores.js'
import { memoryStores } from '../stores/memory/memory-stores.js'
import type { ToolRuntime } from '../tools/tool-runtime.js'
import type { AdmissionHook } from './admission.js'
import type { AgentResolver } from './agent-resolver.js'
import { InProcessRunQueue } from './in-process-run-queue.js'
import type { AgentSpec, RunOutput } from './run-request.js'
import type { SessionWindowCache } from './session-window-cache.js'

/** A run this process executes now: how to cancel it, and its outcome. */
export interface ActiveRun {
  controller: AbortController
  promise: Promise<RunOutput>
}

/** The wiring one AgentRuntime shares with the modules it drives: stores, gate, bus, queue, services, active runs. */
export class RuntimeServices {
  readonly extensions: Extensions
  readonly policy: RuntimePolicy
  readonly ownerId: string
  readonly tools: ToolRuntime
  readonly context: ContextPipeline
  readonly agents: AgentResolver
  readonly windows: SessionWindowCache
  readonly admission: readonly AdmissionHook[]
  /** The runs executing in this process, by id. */
  readonly active = new Map<string, ActiveRun>()
  /** The agent of each run started or resumed here and not yet ended (a suspended run keeps its own). */
  readonly runAgents = new Map<string, AgentSpec>()
  /** Starts of runs with an idempotency key, per session and key, while they start. */
  readonly startsInFlight = new Map<string, Promise<RunOutput>>()
  /** Per run being recovered, told once this process has claimed it. */
  readonly onClaimed = new Map<string, () => void>()
  /** The runtime itself, handed to tools that run a nested agent (opaque here). */
  readonly host: unknown
  readonly #defaultStores: Stores = memoryStores()
  readonly #defaultGate = new InProcessSessionGate()
  readonly #defaultBus = new InProcessEventBus()
  readonly #defaultQueue = new InProcessRunQueue()
  #compaction: CompactionService | undefined

  constructor(parts: Pick<RuntimeServices, 'extensions' | 'policy' | 'ownerId' | 'tools' | 'context' | 'agents' | 'windows' | 'admission' | 'host'>) {
    this.extensions = parts.extensions
    this.policy = parts.policy
    this.ownerId = parts.ownerId
    this.tools = parts.tools
    this.context = parts.context
    this.agents = parts.agents
    this.windows = parts.windows
    this.admission = parts.admission
    this.host = parts.host
  }

  get sessions(): Stores['sessions'] {
    return this.extensions.stores.sessions ?? this.#defaultStores.sessions
  }
  get runs(): Stores['runs'] {
    return this.extensions.stores.runs ?? this.#defaultStores.runs
  }
  get executions(): Stores['executions'] {
    return this.extensions.stores.executions ?? this.#defaultStores.executions
  }
  get snapshots(): Stores['snapshots'] {
    return this.extensions.stores.snapshots ?? this.#defaultStores.snapshots
  }
  get embeddings(): Stores['embeddings'] {
    return this.extensions.stores.embeddings ?? this.#defaultStores.embeddings
  }
  get artifacts(): Stores['artifacts'] {
    return this.extensions.stores.artifacts ?? this.#defaultStores.artifacts
  }
  get gate(): SessionGate {
    return this.extensions.gate ?? this.#defaultGate
  }
  get bus(): EventBus {
    return this.extensions.events ?? this.#defaultBus
  }
  get queue(): RunQueue {
    return this.extensions.queue ?? this.#defaultQueue
  }
  get compaction(): CompactionService {
    const strategy = this.extensions.compaction ?? truncateCompaction()
    if (!this.#compaction || this.#compaction.strategy.name !== strategy.name)
      this.#compaction = new CompactionService(strategy, compactionBreaker(this.policy))
    return this.#compaction
  }

  /** The stores a run uses, as one object. */
  stores(): Stores {
    return {
      sessions: this.sessions,
      runs: this.runs,
      executions: this.executions,
      snapshots: this.snapshots,
      embeddings: this.embeddings,
      artifacts: this.artifacts,
    }
  }
}

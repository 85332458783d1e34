// postgresScaleOut(): one plugin that puts the stores, the session gate, the event bus and the run queue on one pool.
import { ConfigurationError, type Extensions, type Plugin } from '@spindle/core'
import pg from 'pg'
import { type FailoverSettings, failoverSettings } from './failover-settings.js'
import { PostgresEventBus, type PostgresEventBusOptions } from './postgres-event-bus.js'
import { PostgresRunQueue, type PostgresRunQueueOptions } from './postgres-run-queue.js'
import { PostgresSessionGate, type PostgresSessionGateOptions } from './postgres-session-gate.js'
import { type PostgresStores, type PostgresStoresOptions, postgresStores } from './postgres-stores.js'

type Shared = 'pool' | 'connectionString' | 'schema'

/** Options of `postgresScaleOut()`: the connection, the schema, `failoverMs` (the one failover setting) and the parts' own options. */
export interface PostgresScaleOutOptions {
  /** A connection string; a pool is created and ended on dispose. Defaults to `DATABASE_URL`. */
  connectionString?: string
  /** Your pool: used as is and never ended by Spindle. */
  pool?: pg.Pool
  /** Options of the pool created from `connectionString` (`max`, `application_name`…). */
  poolOptions?: Omit<pg.PoolConfig, 'connectionString'>
  /** The schema of Spindle's tables (default `spindle`); pg-boss's tables go to a second schema, `<schema>_queue`. */
  schema?: string
  /**
   * How soon a killed worker's runs are resumed by another worker, in ms (default 30,000; at least 8,000). It sets
   * the three clocks that must agree: the queue's job expiry, the session gate's lease and the runtime's run lease
   * — give `scaleOut.runtimePolicy` to `new AgentRuntime` for the last one. `gate.leaseTtlMs`,
   * `queue.expireInSeconds` and `queue.maintenanceIntervalSeconds`, when given, override what it derives.
   */
  failoverMs?: number
  stores?: Omit<PostgresStoresOptions, Shared>
  gate?: Omit<PostgresSessionGateOptions, Shared>
  events?: Omit<PostgresEventBusOptions, Shared | 'runs'>
  queue?: Omit<PostgresRunQueueOptions, Shared>
}

/** The stores, session gate, event bus and run queue on one pool, as one plugin; give `runtimePolicy` to the `AgentRuntime` so its run lease agrees with `failoverMs`. */
export interface PostgresScaleOut extends Plugin {
  readonly name: 'store-postgres-scale-out'
  readonly pool: pg.Pool
  readonly stores: PostgresStores
  readonly gate: PostgresSessionGate
  readonly events: PostgresEventBus
  readonly queue: PostgresRunQueue
  /** The clocks `failoverMs` set (after the overrides). */
  readonly failover: FailoverSettings
  /**
   * The runtime policy the failover needs (`{ leaseMs }`): `new AgentRuntime(extensions, scaleOut.runtimePolicy)`,
   * or spread it into yours. Without it the runtime's default run lease (30 s) holds a killed worker's runs longer.
   */
  readonly runtimePolicy: { leaseMs: number }
}

/**
 * Everything a fleet of workers shares, on PostgreSQL: the six stores, the session gate, the event bus and the run queue.
 *
 * @example
 * const scaleOut = postgresScaleOut({ connectionString: process.env.DATABASE_URL, failoverMs: 10_000 })
 * const runtime = new AgentRuntime(new Extensions().use(scaleOut), scaleOut.runtimePolicy)
 * await runtime.enqueue({ agent, input: 'hi' })                        // in one process
 * await runtime.work({ concurrency: 4, signal, agents: [agent] })      // in each worker process
 */
export function postgresScaleOut(options: PostgresScaleOutOptions = {}): PostgresScaleOut {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new ConfigurationError('[spindle/store-postgres] postgresScaleOut: pass either `pool` or `connectionString`, not both')
  }
  const connectionString = options.connectionString ?? process.env.DATABASE_URL
  if (options.pool === undefined && connectionString === undefined) {
    throw new ConfigurationError('[spindle/store-postgres] postgresScaleOut: no database; pass `connectionString` or `pool`, or set DATABASE_URL')
  }
  const ownsPool = options.pool === undefined
  const pool = options.pool ?? new pg.Pool({ max: 20, ...options.poolOptions, connectionString })
  // An idle client whose connection broke must not crash the process; the next query opens a new one.
  if (ownsPool) pool.on('error', () => {})
  const schema = options.schema ?? 'spindle'
  const derived = failoverSettings(options.failoverMs)
  const failover: FailoverSettings = {
    ...derived,
    gateLeaseTtlMs: options.gate?.leaseTtlMs ?? derived.gateLeaseTtlMs,
    expireInSeconds: options.queue?.expireInSeconds ?? derived.expireInSeconds,
    maintenanceIntervalSeconds: options.queue?.maintenanceIntervalSeconds ?? derived.maintenanceIntervalSeconds,
  }
  const stores = postgresStores({ ...options.stores, pool, schema })
  const gate = new PostgresSessionGate({ ...options.gate, leaseTtlMs: failover.gateLeaseTtlMs, pool, schema })
  const events = new PostgresEventBus({ ...options.events, pool, schema, runs: stores.runs })
  const queue = new PostgresRunQueue({
    ...options.queue,
    expireInSeconds: failover.expireInSeconds,
    maintenanceIntervalSeconds: failover.maintenanceIntervalSeconds,
    pool,
    schema,
  })
  return {
    name: 'store-postgres-scale-out',
    pool,
    stores,
    gate,
    events,
    queue,
    failover,
    runtimePolicy: { leaseMs: failover.leaseMs },
    async setup(extensions: Extensions) {
      await stores.setup(extensions)
      extensions.gate = gate
      extensions.events = events
      extensions.queue = queue
      await Promise.all([gate.ready(), events.ready(), queue.ready()])
    },
    async dispose() {
      // The queue first: it waits for the runs in flight, which still need the gate, the bus and the stores.
      const results = await Promise.allSettled([queue.close()])
      results.push(...(await Promise.allSettled([events.close(), gate.close()])))
      if (ownsPool) results.push(...(await Promise.allSettled([pool.end()])))
      const errors = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
      if (errors.length === 1) throw errors[0]
      if (errors.length > 1) throw new AggregateError(errors, '[spindle/store-postgres] postgresScaleOut: several parts failed to close')
    },
  }
}

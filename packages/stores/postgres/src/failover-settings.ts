// One failover setting for a fleet of workers: how soon a killed worker's runs are resumed by another. It sets the
// three clocks that must agree — the run queue's job expiry, the session gate's lease and the runtime's run lease.
import { ConfigurationError } from '@spindle/core'

/** What `postgresScaleOut({ failoverMs })` derives; read it from `scaleOut.failover`. */
export interface FailoverSettings {
  /** A killed worker's runs are resumed by another worker within about this (ms). */
  failoverMs: number
  /** The runtime's run lease (`RuntimePolicy.leaseMs`): pass `scaleOut.runtimePolicy` to `new AgentRuntime`. */
  leaseMs: number
  /** The session gate's lease TTL (`PostgresSessionGateOptions.leaseTtlMs`). */
  gateLeaseTtlMs: number
  /** The run queue's job expiry (`PostgresRunQueueOptions.expireInSeconds`). */
  expireInSeconds: number
  /** How often pg-boss looks for expired jobs (`PostgresRunQueueOptions.maintenanceIntervalSeconds`). */
  maintenanceIntervalSeconds: number
}

/** The default failover time: 30 s. */
export const defaultFailoverMs = 30_000
/** The shortest failover time: below it, detecting the death and retrying the job would not fit in it. */
export const minimumFailoverMs = 8_000

/**
 * The three clocks for a failover time F. A killed worker's job expires at most `expireInSeconds` after its last
 * renewal; pg-boss notices within one or two maintenance intervals; the job's retry waits 1–2 s; an idle worker
 * polls every 500 ms. So each lease is 40% of F, and the rest covers detection and retry:
 * 0.4·F + 2·maintenance + 2 s + 0.5 s ≤ F from F = 8 s on (maintenance: 1 s up to F = 40 s, then F / 20, at most 5 s).
 *
 * @example
 * failoverSettings(10_000) // { failoverMs: 10000, leaseMs: 4000, gateLeaseTtlMs: 4000, expireInSeconds: 4, maintenanceIntervalSeconds: 1 }
 */
export function failoverSettings(failoverMs: number = defaultFailoverMs): FailoverSettings {
  if (typeof failoverMs !== 'number' || !Number.isFinite(failoverMs) || failoverMs < minimumFailoverMs) {
    throw new ConfigurationError(
      `[spindle/store-postgres] postgresScaleOut: "failoverMs" must be a number of milliseconds of at least ${minimumFailoverMs}, got ${String(failoverMs)}`,
    )
  }
  const leaseSeconds = Math.max(2, Math.floor((failoverMs * 0.4) / 1000))
  const maintenanceIntervalSeconds = Math.min(5, Math.max(1, Math.floor(failoverMs / 20_000)))
  return { failoverMs, leaseMs: leaseSeconds * 1000, gateLeaseTtlMs: leaseSeconds * 1000, expireInSeconds: leaseSeconds, maintenanceIntervalSeconds }
}

// failoverMs: one setting that derives the queue's job expiry, the gate's lease and the runtime's run lease so that a
// killed worker's runs are resumed within it (the timing itself is tested end to end by examples/scale-out).
import { AgentRuntime, ConfigurationError, Extensions } from '@spindle/core'
import { describe, expect, it } from 'vitest'
import { defaultFailoverMs, failoverSettings, minimumFailoverMs } from './failover-settings.js'
import { postgresScaleOut } from './postgres-scale-out.js'

const connectionString = 'postgres://postgres@127.0.0.1:5432/test'

describe('failoverMs', () => {
  it('derives three clocks that agree, with room for detection and retry inside failoverMs', () => {
    for (const failoverMs of [minimumFailoverMs, 10_000, 15_500, defaultFailoverMs, 45_000, 60_000, 600_000]) {
      const settings = failoverSettings(failoverMs)
      expect(settings.leaseMs).toBe(settings.gateLeaseTtlMs)
      expect(settings.expireInSeconds * 1000).toBe(settings.leaseMs)
      // Job expiry + up to two maintenance intervals + the first retry's delay (≤ 2 s) + an idle worker's poll (0.5 s).
      expect(settings.leaseMs + 2 * settings.maintenanceIntervalSeconds * 1000 + 2_500, String(failoverMs)).toBeLessThanOrEqual(failoverMs)
      // The runtime renews its run lease every max(1 s, leaseMs / 3): the lease must outlive two renewals.
      expect(settings.leaseMs).toBeGreaterThanOrEqual(2_000)
    }
    expect(failoverSettings()).toEqual(failoverSettings(defaultFailoverMs))
  })

  it('refuses a failoverMs under 8 s, or not a number, with a ConfigurationError naming the option', () => {
    for (const failoverMs of [7_999, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, '10000' as unknown as number]) {
      expect(() => failoverSettings(failoverMs), String(failoverMs)).toThrow(ConfigurationError)
    }
    expect(() => postgresScaleOut({ connectionString, failoverMs: 1_000 })).toThrow(/"failoverMs" must be a number of milliseconds of at least 8000/)
  })

  it('postgresScaleOut({ failoverMs }) sets the gate and the queue, and gives the runtime its leaseMs', async () => {
    const scaleOut = postgresScaleOut({ connectionString, failoverMs: 10_000 })
    try {
      expect(scaleOut.failover).toEqual(failoverSettings(10_000))
      expect(scaleOut.runtimePolicy).toEqual({ leaseMs: 4_000 })
      const runtime = new AgentRuntime(new Extensions(), scaleOut.runtimePolicy)
      expect(runtime.policy.leaseMs).toBe(4_000)
      // Explicit clocks still win (advanced), and failover shows what is in force.
      const custom = postgresScaleOut({
        connectionString,
        failoverMs: 10_000,
        gate: { leaseTtlMs: 3_000 },
        queue: { expireInSeconds: 5, maintenanceIntervalSeconds: 2 },
      })
      expect(custom.failover).toMatchObject({ gateLeaseTtlMs: 3_000, expireInSeconds: 5, maintenanceIntervalSeconds: 2, leaseMs: 4_000 })
      await custom.pool.end()
    } finally {
      await scaleOut.pool.end()
    }
  })
})

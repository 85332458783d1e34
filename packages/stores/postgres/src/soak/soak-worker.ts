// A soak worker process: postgresScaleOut() on a pool named after the test, then runtime.work() until SIGTERM
// (graceful: finishes its runs in flight) or SIGKILL (the parent's crash).
// Usage: node --conditions=@spindle/source --import tsx soak-worker.ts '<json SoakWorkerConfig>'
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut } from '../index.js'
import { soakAgent, soakRecorders, soakTask } from './soak-workload.js'

export interface SoakWorkerConfig {
  databaseUrl: string
  schema: string
  worker: string
  applicationName: string
  seed: number
  runs: number
  sessions: number
  concurrency: number
  /** Session gate TTL, run lease and job expiry (ms): how fast a dead worker's runs are taken over. */
  leaseMs: number
}

const config = JSON.parse(process.argv[2]!) as SoakWorkerConfig
const leaseSeconds = Math.max(1, Math.round(config.leaseMs / 1000))
const scaleOut = postgresScaleOut({
  connectionString: config.databaseUrl,
  poolOptions: { application_name: config.applicationName, max: 8 },
  schema: config.schema,
  gate: { leaseTtlMs: config.leaseMs },
  queue: { expireInSeconds: leaseSeconds, maintenanceIntervalSeconds: 1, retryDelaySeconds: 1, retryLimit: 40, pollIntervalMs: 200 },
})
const extensions = new Extensions().use(scaleOut)
await extensions.ready()
const runtime = new AgentRuntime(
  extensions,
  { leaseMs: config.leaseMs, onContention: 'queue', maxQueue: 256, queueTimeoutMs: 60_000 },
  { ownerId: `${config.worker}-${process.pid}` },
)
const { ledger, activity } = soakRecorders(scaleOut.pool, config.schema, config.worker)
const agents = Array.from({ length: config.runs }, (_, index) => soakAgent(soakTask(config.seed, index, config.sessions), ledger, activity))

const controller = new AbortController()
process.on('SIGTERM', () => controller.abort())
process.stdout.write('READY\n')
await runtime.work({ concurrency: config.concurrency, signal: controller.signal, agents })
await extensions.dispose()
process.stdout.write('STOPPED\n')

// A worker: claims queued runs from PostgreSQL and executes them, two at a time, until Ctrl-C (it then finishes
// the runs it holds). Start it in two terminals (or on two machines), then run enqueue.ts:
//   pnpm exec tsx --conditions=@spindle/source examples/scale-out/worker.ts
// Kill one with `kill -9` mid-run: after its lease expires (5 s here), the other worker resumes its runs.
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut } from '@spindle/store-postgres'
import { databaseUrl, exampleSchema, supportAgent } from './support-agent.js'

const name = process.env.WORKER_NAME ?? `worker-${process.pid}`
const extensions = new Extensions().use(
  postgresScaleOut({
    connectionString: databaseUrl,
    schema: exampleSchema,
    // Short leases so that a killed worker's runs move on quickly in the demo (defaults: 15 s gate, 60 s job).
    gate: { leaseTtlMs: 5_000 },
    queue: { expireInSeconds: 5, maintenanceIntervalSeconds: 2 },
  }),
)
const runtime = new AgentRuntime(extensions, { leaseMs: 5_000 }, { ownerId: name })
const agent = supportAgent((line) => console.log(`${name}  ${line}`))

const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.log(`${name}  stopping: finishing the runs in flight…`)
    controller.abort()
  })
}
await extensions.ready()
console.log(`${name}  ready, waiting for runs (schema ${exampleSchema})`)
await runtime.work({ concurrency: 2, signal: controller.signal, agents: [agent] })
await extensions.dispose()
console.log(`${name}  stopped`)

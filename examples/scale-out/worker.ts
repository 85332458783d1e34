// A worker: claims queued runs from PostgreSQL and executes them, two at a time, until Ctrl-C (it then finishes
// the runs it holds). Start it in two terminals (or on two machines), then run enqueue.ts:
//   node --conditions=@spindle/source --import tsx examples/scale-out/worker.ts
// Kill one with `kill -9 <pid>` mid-run (it prints its pid): within failoverMs (8 s here), the other worker resumes
// its runs. Started through a wrapper (`pnpm exec tsx …`), it dies with the wrapper: see exit-with-parents.ts.
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut } from '@spindle/store-postgres'
import { exitWithParents } from './exit-with-parents.js'
import { databaseUrl, exampleSchema, supportAgent } from './support-agent.js'

const name = process.env.WORKER_NAME ?? `worker-${process.pid}`
// One setting for failover: the queue's job expiry, the session gate's lease and the runtime's run lease follow it.
const scaleOut = postgresScaleOut({ connectionString: databaseUrl, schema: exampleSchema, failoverMs: 8_000 })
const extensions = new Extensions().use(scaleOut)
const runtime = new AgentRuntime(extensions, scaleOut.runtimePolicy, { ownerId: name })
const agent = supportAgent((line) => console.log(`${name}  ${line}`))

const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.log(`${name}  stopping: finishing the runs in flight…`)
    controller.abort()
  })
}
exitWithParents(controller.signal)
await extensions.ready()
console.log(`${name}  ready (pid ${process.pid}), waiting for runs (schemas ${exampleSchema} and ${exampleSchema}_queue)`)
await runtime.work({ concurrency: 2, signal: controller.signal, agents: [agent] })
await extensions.dispose()
console.log(`${name}  stopped`)

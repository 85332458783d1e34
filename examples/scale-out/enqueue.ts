// Enqueues runs from one process and returns at once; workers (worker.ts) execute them. With --wait it then
// follows the runs to the end and prints the answers. Run again, it enqueues nothing new (the idempotency keys).
//   node --conditions=@spindle/source --import tsx examples/scale-out/enqueue.ts 10 --wait
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut } from '@spindle/store-postgres'
import { databaseUrl, exampleSchema, supportAgent } from './support-agent.js'

const count = Number(process.argv.find((argument) => /^\d+$/.test(argument)) ?? 10)
const wait = process.argv.includes('--wait')

const extensions = new Extensions().use(postgresScaleOut({ connectionString: databaseUrl, schema: exampleSchema }))
const runtime = new AgentRuntime(extensions)
const agent = supportAgent()

await extensions.ready() // the stores are set up before they are read
const started = Date.now()
const runs: Array<{ runId: string; sessionId: string }> = []
let already = 0
for (let i = 0; i < count; i++) {
  const order = 1000 + i
  const sessionId = `customer-${Math.floor(i / 2)}`
  const idempotencyKey = `order-${order}`
  // Two questions per customer session; the same idempotency key never enqueues twice.
  if (await runtime.runs.findRunByIdempotencyKey(sessionId, idempotencyKey)) already++
  const run = await runtime.enqueue({ agent, sessionId, input: `Where is order ${order}?`, idempotencyKey })
  runs.push(run)
}
console.log(
  `enqueued ${runs.length - already} new runs in ${Date.now() - started} ms (${already} of the ${runs.length} were already enqueued: same idempotency key)`,
)

if (wait) {
  for (const { runId } of runs) {
    let run = await runtime.runs.getRun(runId)
    while (run && (run.status === 'queued' || run.status === 'running')) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      run = await runtime.runs.getRun(runId)
    }
    const finished = (await runtime.runs.listEvents(runId)).find((event) => event.type === 'run.finished')
    console.log(`${runId} ${run?.status}: ${finished && 'text' in finished ? finished.text : '(no answer)'}`)
  }
  console.log(`all ${runs.length} runs finished in ${Date.now() - started} ms`)
}
await extensions.dispose()

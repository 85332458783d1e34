// A benchmark worker: connects, says READY, and starts working when the parent writes GO (so that start-up time
// is not measured); stops gracefully on SIGTERM.
import { AgentRuntime, Extensions } from '@spindle/core'
import { postgresScaleOut } from '../src/index.js'
import { benchAgent } from './bench-agent.js'

const { databaseUrl, schema, concurrency, steps } = JSON.parse(process.argv[2]!) as { databaseUrl: string; schema: string; concurrency: number; steps: number }
const extensions = new Extensions().use(postgresScaleOut({ connectionString: databaseUrl, schema, queue: { pollIntervalMs: 100 } }))
await extensions.ready()
const runtime = new AgentRuntime(extensions, { maxQueue: 1000, queueTimeoutMs: 120_000 })
const controller = new AbortController()
process.on('SIGTERM', () => controller.abort())
process.stdout.write('READY\n')
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()))
process.stdin.destroy() // an open stdin would keep the process alive after work() ends
await runtime.work({ concurrency, signal: controller.signal, agents: [benchAgent(steps)] })
await extensions.dispose()

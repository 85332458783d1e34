// A worker process of the postgres-workers suite (forked by it): one AgentRuntime on its own `postgresScaleOut`
// calling `runtime.work({ concurrency })` until told to stop. It reports over IPC what the parent cannot see from
// the stores: the scripted models it resolved (each must reach its last turn) and its tool executions.
import { AgentRuntime, Extensions, type MockModel } from '@spindle/core'
import { postgresScaleOut } from '@spindle/store-postgres'
import { policyFor, scriptedModel, toolCounter } from '../workload.js'
import { workerAgent, workerProviderName } from './postgres-workers.js'

/** What the parent sends: its settings first, then `report` after each round and `stop` at the end. */
export type WorkerCommand =
  { type: 'start'; connectionString: string; schema: string; concurrency: number; steps: number } | { type: 'report' } | { type: 'stop' }

/** What the worker sends back. */
export type WorkerMessage =
  { type: 'ready' } | { type: 'report'; modelTurns: number[]; executions: number } | { type: 'failed'; message: string } | { type: 'stopped' }

function send(message: WorkerMessage): void {
  process.send!(message)
}

async function main(settings: Extract<WorkerCommand, { type: 'start' }>): Promise<void> {
  const models: MockModel[] = []
  const plugin = postgresScaleOut({ connectionString: settings.connectionString, schema: settings.schema })
  const extensions = new Extensions().use(plugin)
  extensions.providers.registerProvider(workerProviderName, {
    languageModel: () => {
      const model = scriptedModel(settings.steps)
      models.push(model)
      return model
    },
  })
  await extensions.ready()
  const runtime = new AgentRuntime(extensions, policyFor(settings.steps))
  const controller = new AbortController()
  let executionsReported = 0
  process.on('message', (command: WorkerCommand) => {
    if (command.type === 'report') {
      send({ type: 'report', modelTurns: models.splice(0).map((model) => model.turnIndex), executions: toolCounter.executions - executionsReported })
      executionsReported = toolCounter.executions
    } else if (command.type === 'stop') controller.abort()
  })
  send({ type: 'ready' })
  try {
    // Graceful on stop: no new claims, the runs in flight finish.
    await runtime.work({ concurrency: settings.concurrency, signal: controller.signal, agents: [workerAgent] })
  } catch (error) {
    send({ type: 'failed', message: (error as Error).message })
  }
  await extensions.dispose()
  send({ type: 'stopped' })
  process.disconnect()
}

process.once('message', (command: WorkerCommand) => {
  if (command.type !== 'start') throw new Error(`[spindle/bench] worker: expected start, got ${command.type}`)
  main(command).catch((error: unknown) => {
    send({ type: 'failed', message: (error as Error).message })
    process.exitCode = 1
    process.disconnect()
  })
})

// Composes Spindle from configuration: stores (SQLite or PostgreSQL), providers (demo, OpenAI, Anthropic), tools.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { AgentRuntime, type AgentSpec, ConfigurationError, Extensions, InProcessEventBus, type Stores, type Tool } from '@spindle/core'
import { demoModel, demoModelId, demoModelLabel } from '../demo/demo-model.js'
import { demoSubAgentTools } from '../demo/demo-sub-agents.js'
import { demoTools } from '../demo/demo-tools.js'
import type { PlaygroundConfig } from './config.js'
import { LiveEventBuffer } from './live-event-buffer.js'
import { ModelCallRecorder } from './model-call-recorder.js'
import { watchOrphanedRuns } from './orphaned-runs.js'
import { RunFence } from './run-fence.js'

/** What the model picker shows. Never carries a key. */
export interface ModelOption {
  id: string
  label: string
  demo: boolean
  /** US dollars per million tokens, for the cost column. */
  pricing?: { input: number; output: number; note?: string }
}

export interface Spindle {
  runtime: AgentRuntime
  /** The stores without the kill fence (for marking a killed run `interrupted`). */
  rawStores: Stores
  fence: RunFence
  /** This process's events not logged yet, for SSE catch-up. */
  liveEvents: LiveEventBuffer
  storeKind: 'sqlite' | 'postgres'
  models: ModelOption[]
  tools: Record<string, Tool>
  /** Every model call's exact request and raw response (the debugger's "what the model saw"). */
  modelCalls: ModelCallRecorder
  sandbox: string
  agentFor(modelId: string): AgentSpec
  close(): Promise<void>
}

const instructions =
  'You are the assistant of the Spindle playground. Be brief. Use the tools when they help: calculator for arithmetic, ' +
  'notes to save and list notes, the file tools on the sandbox folder, run_code for JavaScript.'

export async function composeSpindle(config: PlaygroundConfig): Promise<Spindle> {
  mkdirSync(config.dataDir, { recursive: true })
  const { stores, storeKind, closeStores } = await openStores(config)
  const fence = new RunFence()
  const liveEvents = new LiveEventBuffer()
  // The fence outside: what it refuses (a killed run's writes and events) never reaches the buffer.
  const extensions = new Extensions().setStores(fence.wrapStores(liveEvents.wrapStores(stores)))
  extensions.events = fence.wrapBus(liveEvents.wrapBus(new InProcessEventBus()))

  const models: ModelOption[] = [{ id: demoModelId, label: demoModelLabel, demo: true, pricing: { input: 0.5, output: 1.5, note: 'illustrative price' } }]
  extensions.providers.registerModel(demoModelId, demoModel({ chunkDelayMs: config.demo.chunkDelayMs }))
  if (config.openai) {
    const { createOpenAI } = await import('@spindle/openai')
    const compatible = config.openai.baseURL !== undefined
    const name = compatible ? 'compatible' : 'openai'
    extensions.use(createOpenAI({ name, apiKey: config.openai.apiKey ?? 'not-needed', baseURL: config.openai.baseURL }))
    models.push({ id: `${name}:${config.openai.model}`, label: `${compatible ? 'OpenAI-compatible' : 'OpenAI'} — ${config.openai.model}`, demo: false })
  }
  if (config.anthropic) {
    const { createAnthropic } = await import('@spindle/anthropic')
    extensions.use(createAnthropic({ apiKey: config.anthropic.apiKey }))
    models.push({ id: `anthropic:${config.anthropic.model}`, label: `Anthropic — ${config.anthropic.model}`, demo: false })
  }
  models.push(...(await (await import('./ai-sdk-models.js')).aiSdkModelsFromEnv(extensions)))
  await extensions.ready()
  const modelCalls = new ModelCallRecorder({ directory: join(config.dataDir, 'model-calls') })
  modelCalls.install(extensions)

  const sandbox = join(config.dataDir, 'sandbox')
  const tools = { ...demoTools({ sandbox, notesFile: join(config.dataDir, 'notes.json') }), ...demoSubAgentTools() }
  const leaseMs = config.leaseMs ?? 15_000
  const runtime = new AgentRuntime(extensions, { maxSteps: 8, leaseMs })
  // Runs left `running` by a process that died are shown as interrupted, ready to resume: at once when their lease
  // has expired, else by the watch when it does (a restart right after a crash).
  await runtime.recover({ mode: 'interrupt' })
  const orphans = watchOrphanedRuns({ runs: stores.runs, ownerId: runtime.ownerId, leaseMs })

  return {
    runtime,
    rawStores: stores,
    fence,
    liveEvents,
    storeKind,
    models,
    tools,
    modelCalls,
    sandbox,
    agentFor(modelId) {
      if (!models.some((model) => model.id === modelId)) {
        throw new ConfigurationError(`[spindle/playground] unknown model "${modelId}"; available: ${models.map((model) => model.id).join(', ')}`)
      }
      return { name: 'playground', instructions, model: modelId, tools }
    },
    async close() {
      await orphans.stop()
      await extensions.dispose()
      await closeStores()
    },
  }
}

async function openStores(config: PlaygroundConfig): Promise<{ stores: Stores; storeKind: 'sqlite' | 'postgres'; closeStores: () => Promise<void> }> {
  if (config.databaseUrl) {
    const { postgresStores } = await import('@spindle/store-postgres')
    const stores = postgresStores({ connectionString: config.databaseUrl, schema: config.databaseSchema })
    await stores.migrate()
    return { stores, storeKind: 'postgres', closeStores: () => stores.close() }
  }
  const { sqliteStores } = await import('@spindle/store-sqlite')
  const stores = sqliteStores({ path: join(config.dataDir, 'playground.db') })
  return { stores, storeKind: 'sqlite', closeStores: async () => stores.close() }
}

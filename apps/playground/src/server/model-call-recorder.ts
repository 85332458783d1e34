// ModelCallRecorder: keeps, per model call, the exact request a model received (after the context adapters and
// compaction) and the raw parts it streamed back. Core has no event carrying the request, so the playground wraps
// every model its registry resolves, and a last context adapter tells each run's wrapper which run and step it serves.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type {
  ContextAdapter,
  Extensions,
  JsonValue,
  LanguageModel,
  ModelCallOptions,
  ModelMessage,
  ModelRequest,
  StreamPart,
  ToolSpecification,
  Usage,
} from '@spindle/core'
import { type ContextComposition, composeContext } from './context-composition.js'

/** One model call as the model saw it. */
export interface RecordedModelCall {
  /** `<runId>:<step>:<attempt>`, unique in this process. */
  id: string
  runId: string
  step: number
  /** 0 for the first attempt of a step; higher for the runtime's retries and length continuations. */
  attempt: number
  provider: string
  modelId: string
  contextWindow: number
  startedAt: number
  durationMs?: number
  request: {
    messages: ModelMessage[]
    tools: ToolSpecification[]
    settings: Record<string, JsonValue>
  }
  /** The stream parts as received; consecutive text or reasoning deltas are merged into one part. */
  response: { parts: StreamPart[]; usage?: Usage; finishReason?: string; error?: string }
  composition: ContextComposition
}

/** What the last context adapter saw of a step's build: the system sections, sorted by where they came from. */
interface StepContext {
  runId: string
  step: number
  instructions?: string
  summary?: string
  memory: string[]
}

const defaultCapacity = 400
const maxPartsPerCall = 4_000
/** A run's file stops growing past this size (a runaway loop must not fill the disk). */
const maxFileBytes = 20 * 1024 * 1024
const summaryPrefix = 'Summary of the earlier conversation:'

/**
 * Records model calls: the latest `capacity` in memory, and with `directory` each finished call also as one JSON line
 * in `<directory>/<runId>.jsonl`, so that a restarted server still shows them. What `GET /api/runs/:id/model-calls`
 * answers.
 */
export class ModelCallRecorder {
  readonly #calls: RecordedModelCall[] = []
  readonly #capacity: number
  /** By wrapper: the step its run is building now (set by the adapter right before the model call). */
  readonly #current = new WeakMap<LanguageModel, StepContext>()
  readonly #attempts = new Map<string, number>()

  readonly #directory: string | undefined

  constructor(options: { capacity?: number; directory?: string } = {}) {
    this.#capacity = options.capacity ?? defaultCapacity
    this.#directory = options.directory
    if (this.#directory) mkdirSync(this.#directory, { recursive: true })
  }

  /** Wraps the registry's `languageModel()`: each resolve (one per run) gets its own recording wrapper. */
  install(extensions: Extensions): void {
    const registry = extensions.providers
    const resolve = registry.languageModel.bind(registry)
    registry.languageModel = ((id: Parameters<typeof resolve>[0]) => this.wrap(resolve(id))) as typeof registry.languageModel
    extensions.addContextAdapter(this.adapter)
  }

  /** The last context adapter: names the run and step of the build to the run's model wrapper. */
  readonly adapter: ContextAdapter = {
    name: 'playground-model-call-recorder',
    apply: (draft, input) => {
      const memory: string[] = []
      let instructions: string | undefined
      let summary: string | undefined
      for (const section of draft.system) {
        if (instructions === undefined && section === input.instructions) instructions = section
        else if (section.startsWith(summaryPrefix)) summary = section
        else memory.push(section)
      }
      this.#current.set(input.model, { runId: input.runId, step: input.step, instructions, summary, memory })
    },
  }

  wrap(model: LanguageModel): LanguageModel {
    const wrapper: LanguageModel = {
      specificationVersion: model.specificationVersion,
      provider: model.provider,
      modelId: model.modelId,
      capabilities: model.capabilities,
      stream: (request: ModelRequest, options?: ModelCallOptions): AsyncIterable<StreamPart> => {
        const context = this.#current.get(wrapper)
        if (!context) return model.stream(request, options)
        const call = this.#begin(model, request, context)
        return this.#record(model.stream(request, options), call)
      },
    }
    return wrapper
  }

  /** The calls of a run, oldest first. */
  forRun(runId: string): RecordedModelCall[] {
    const inMemory = this.#calls.filter((call) => call.runId === runId)
    if (inMemory.length || !this.#directory) return inMemory
    const file = this.#fileOf(runId)
    if (!file || !existsSync(file)) return []
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as RecordedModelCall]
        } catch {
          return [] // a line cut short by a crash mid-write
        }
      })
  }

  /** The run's file; undefined for an id that is not a plain run id (it names a path). */
  #fileOf(runId: string): string | undefined {
    return this.#directory && /^[\w.-]{1,200}$/.test(runId) && !runId.startsWith('.') ? join(this.#directory, `${runId}.jsonl`) : undefined
  }

  #persist(call: RecordedModelCall): void {
    const file = this.#fileOf(call.runId)
    if (!file) return
    try {
      if (existsSync(file) && statSync(file).size > maxFileBytes) return
      appendFileSync(file, `${JSON.stringify(call)}\n`)
    } catch (error) {
      console.error(`[spindle/playground] a model call of run "${call.runId}" could not be saved: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  #begin(model: LanguageModel, request: ModelRequest, context: StepContext): RecordedModelCall {
    const stepKey = `${context.runId}:${context.step}`
    const attempt = this.#attempts.get(stepKey) ?? 0
    this.#attempts.set(stepKey, attempt + 1)
    // The runtime reuses `request.messages` for the next step: the copy keeps the messages as they were sent.
    const messages = structuredClone(request.messages)
    const tools = structuredClone(request.tools ?? [])
    const { messages: _messages, tools: _tools, ...rest } = request
    const settings = JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>
    const call: RecordedModelCall = {
      id: `${stepKey}:${attempt}`,
      runId: context.runId,
      step: context.step,
      attempt,
      provider: model.provider,
      modelId: model.modelId,
      contextWindow: model.capabilities.contextWindow,
      startedAt: Date.now(),
      request: { messages, tools, settings },
      response: { parts: [] },
      composition: composeContext({
        messages,
        tools,
        sections: context,
        contextWindow: model.capabilities.contextWindow,
        maxOutputTokens: request.maxOutputTokens,
      }),
    }
    this.#calls.push(call)
    if (this.#calls.length > this.#capacity) {
      const dropped = this.#calls.shift()!
      this.#attempts.delete(`${dropped.runId}:${dropped.step}`)
    }
    return call
  }

  async *#record(parts: AsyncIterable<StreamPart>, call: RecordedModelCall): AsyncIterable<StreamPart> {
    const started = performance.now()
    try {
      for await (const part of parts) {
        keep(call, part)
        yield part
      }
    } catch (error) {
      call.response.error = error instanceof Error ? error.message : String(error)
      throw error
    } finally {
      call.durationMs = Math.round(performance.now() - started)
      this.#persist(call)
    }
  }
}

/** Adds a part to the call's response: deltas merged, the list bounded. */
function keep(call: RecordedModelCall, part: StreamPart): void {
  const { response } = call
  if (part.type === 'usage') response.usage = part.usage
  if (part.type === 'finish') {
    response.finishReason = part.finishReason
    if (part.usage) response.usage = part.usage
  }
  if (part.type === 'error') response.error = part.error instanceof Error ? part.error.message : String(part.error)
  const last = response.parts.at(-1)
  if (part.type === 'text-delta' && last?.type === 'text-delta') {
    response.parts[response.parts.length - 1] = { type: 'text-delta', delta: last.delta + part.delta }
    return
  }
  if (part.type === 'reasoning-delta' && last?.type === 'reasoning-delta' && !last.signature && !last.redacted) {
    response.parts[response.parts.length - 1] = { ...part, delta: last.delta + part.delta }
    return
  }
  if (part.type === 'tool-call-delta' && last?.type === 'tool-call-delta' && last.id === part.id) {
    response.parts[response.parts.length - 1] = { ...part, argsDelta: last.argsDelta + part.argsDelta }
    return
  }
  if (response.parts.length < maxPartsPerCall) response.parts.push(part.type === 'error' ? { type: 'error', error: response.error } : part)
}

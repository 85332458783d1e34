import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RuntimeStoreError } from '../errors/errors.js'
import type { ToolExecutionContext } from './tool.js'
import { createRuntimeTool } from './create-runtime-tool.js'
import { RUNTIME_CONTEXT_FIELD } from '../runtime-store/runtime-context-field.js'
import { RuntimeStore } from '../runtime-store/runtime-store.js'

interface Workbook {
  sheets: Record<string, string[][]>
}

const previewSheet = createRuntimeTool({
  id: 'excel.preview',
  description: "Renvoie un aperçu d'une feuille XLSX déjà chargée",
  inputSchema: z.object({ sheet: z.string() }),
  async execute({ sheet }, { runtime }) {
    const workbook = runtime.require<Workbook>('workbook')
    return { rows: (workbook.sheets[sheet] ?? []).slice(0, 5), current: RuntimeStore.current() === runtime }
  },
})

function context(runtime: RuntimeStore<any> | undefined): ToolExecutionContext {
  return {
    runId: 'run-1',
    sessionId: 'session-1',
    step: 1,
    callId: 'call-1',
    toolName: 'excel_preview',
    idempotencyKey: 'run-1:1:call-1',
    signal: new AbortController().signal,
    runtime,
    artifacts: undefined as never,
  }
}

const workbook: Workbook = { sheets: { Synthese: [['a'], ['b'], ['c'], ['d'], ['e'], ['f']] } }

describe('createRuntimeTool', () => {
  it('keeps the id as identity and gives the model a sanitized name', () => {
    expect(previewSheet.id).toBe('excel.preview')
    expect(previewSheet.name).toBe('excel_preview')
    const named = createRuntimeTool({ id: 'x.y', name: 'custom', description: 'd', inputSchema: z.object({}), execute: () => 1 })
    expect(named.name).toBe('custom')
  })

  it('passes context.runtime to execute, bound as the current runtime', async () => {
    const runtime = new RuntimeStore().set('workbook', workbook)
    const result = await previewSheet.execute({ sheet: 'Synthese' }, context(runtime))
    expect(result.rows).toHaveLength(5)
    expect(result.current).toBe(true)
  })

  it('falls back to RuntimeStore.current(), then to a runtime carried under RUNTIME_CONTEXT_FIELD', async () => {
    const runtime = new RuntimeStore().set('workbook', workbook)
    const viaCurrent = await runtime.run(() => previewSheet.execute({ sheet: 'Synthese' }, context(undefined)))
    expect(viaCurrent.rows[0]).toEqual(['a'])
    const carried = RuntimeStore.mergeExperimentalContext(context(undefined), runtime)
    const viaField = await previewSheet.execute({ sheet: 'Synthese' }, carried)
    expect(viaField.current).toBe(true)
    expect(carried[RUNTIME_CONTEXT_FIELD]).toBe(runtime)
  })

  it('prefers the request runtime passed in the context over an unrelated current one', async () => {
    const request = new RuntimeStore().set('workbook', workbook)
    const other = new RuntimeStore().set('workbook', { sheets: {} })
    const result = await other.run(() => previewSheet.execute({ sheet: 'Synthese' }, context(request)))
    expect(result.rows).toHaveLength(5)
  })

  it('fails at once, before running its body, when no runtime is active', async () => {
    let ran = false
    const tool = createRuntimeTool({
      id: 'guarded',
      description: 'd',
      inputSchema: z.object({}),
      execute: () => {
        ran = true
      },
    })
    const error = await Promise.resolve(tool.execute({}, context(undefined))).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(RuntimeStoreError)
    expect((error as Error).message).toMatch(/runtime tool "guarded" ran without a RuntimeStore/)
    expect(ran).toBe(false)
  })
})

describe('a runtime tool in a run', () => {
  it('is named by its key for the model, and by its id in tool events and the journal', async () => {
    const { AgentRuntime } = await import('../runtime/agent-runtime.js')
    const { mockModel } = await import('../providers/mock-model.js')
    const preview = createRuntimeTool({
      id: 'excel.preview',
      description: 'Previews a sheet',
      inputSchema: z.object({ sheet: z.string() }),
      execute: ({ sheet }, { runtime }) => `${runtime.require<string>('workbook')}:${sheet}`,
    })
    const failing = createRuntimeTool({
      id: 'excel.fail',
      description: 'Fails',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('broken sheet')
      },
    })
    const agentRuntime = new AgentRuntime()
    const model = mockModel([
      {
        toolCalls: [
          { name: 'previewSheet', args: { sheet: 'Synthese' } },
          { name: 'failSheet', args: {} },
        ],
      },
      { text: 'ok' },
    ])
    const events = []
    for await (const event of agentRuntime.stream({
      agent: { name: 'a', model, tools: { previewSheet: preview, failSheet: failing } },
      input: 'go',
      runtime: new RuntimeStore().set('workbook', 'wb'),
    }))
      events.push(event)
    const toolEvents = events.filter((event) => event.type === 'tool.started' || event.type === 'tool.result' || event.type === 'tool.error')
    // The two calls run in parallel: their events interleave.
    expect(toolEvents.map((event) => [event.type, event.toolName, (event as { toolId?: string }).toolId]).sort()).toEqual([
      ['tool.error', 'failSheet', 'excel.fail'],
      ['tool.result', 'previewSheet', 'excel.preview'],
      ['tool.started', 'failSheet', 'excel.fail'],
      ['tool.started', 'previewSheet', 'excel.preview'],
    ])
    const runId = events[0]!.runId
    expect((await agentRuntime.executions.listByRun(runId)).map((record) => record.toolName).sort()).toEqual(['excel.fail', 'excel.preview'])
  })
})

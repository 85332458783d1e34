// The examples of seeds 000 and 001 (RuntimeStore docs), as written, with mockModel in place of scaleway(...).
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  Agent,
  DisposedValueError,
  RUNTIME_CONTEXT_FIELD,
  RuntimeStore,
  createRuntime,
  createRuntimeTool,
  mockModel,
  registerRuntimeResource,
  withRuntime,
} from '../index.js'
import type { ModelRequest } from '../spec/language-model.js'

/** A stand-in for an ExcelJS workbook that refuses to work once destroyed. */
class Workbook {
  static live = 0
  destroyed = 0
  constructor(readonly sheets: Record<string, string[][]>) {
    Workbook.live++
  }
  static async fromBuffer(buffer: Buffer): Promise<Workbook> {
    return new Workbook(JSON.parse(buffer.toString('utf8')) as Record<string, string[][]>)
  }
  sheet(name: string): string[][] {
    if (this.destroyed) throw new Error('workbook used after destroy()')
    return this.sheets[name] ?? []
  }
  destroy(): void {
    if (!this.destroyed) Workbook.live--
    this.destroyed++
  }
}
const ExcelJS = { Workbook }

const rows = Array.from({ length: 8 }, (_, index) => [`KPI ${index}`, String(index * 10)])
const payload = { base64: Buffer.from(JSON.stringify({ Synthese: rows })).toString('base64') }
const loadWorkbookFromBase64 = (data: { base64: string }) => Workbook.fromBuffer(Buffer.from(data.base64, 'base64'))
const extractPreview = (workbook: Workbook, sheet: string) => workbook.sheet(sheet)

function lastToolResult(request: ModelRequest): unknown {
  const last = request.messages[request.messages.length - 1]
  return last?.role === 'tool' ? last.content[0]?.result : undefined
}

const unregisters: Array<() => void> = []
afterEach(() => {
  while (unregisters.length) unregisters.pop()!()
})

describe('seed 000 — Runtime des agents', () => {
  it('Initialiser un runtime: generate with a runtime, the workbook cleanup runs once at the end of the request', async () => {
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    runtime.set('workbook', await loadWorkbookFromBase64(payload))
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
    const workbook = runtime.require('workbook')

    const assistant = new Agent({
      name: 'assistant-ops',
      model: mockModel([{ text: 'KPI 1: marge brute. KPI 2: délai de paiement.' }]),
    })

    const result = await assistant.generate({
      prompt: 'Analyse la feuille `Synthese` et propose deux KPI.',
      runtime,
    })
    expect(result.finishReason).toBe('stop')
    expect(result.text).toBe('KPI 1: marge brute. KPI 2: délai de paiement.')
    expect(workbook.destroyed).toBe(1)
    expect(() => runtime.require('workbook')).toThrow(DisposedValueError)
    await runtime.dispose()
    expect(workbook.destroyed).toBe(1)
  })

  it('Outils orientés runtime: excel.preview reads the loaded workbook through { runtime }', async () => {
    const previewSheet = createRuntimeTool({
      id: 'excel.preview',
      description: "Renvoie un aperçu d'une feuille XLSX déjà chargée",
      inputSchema: z.object({ sheet: z.string() }),
      async execute({ sheet }, { runtime }) {
        const workbook = runtime.require<Workbook>('workbook')
        const data = extractPreview(workbook, sheet)
        return { rows: data.slice(0, 5) }
      },
    })
    const model = mockModel([{ toolCalls: [{ name: 'previewSheet', args: { sheet: 'Synthese' } }] }, { text: 'Aperçu lu.' }])
    const assistant = new Agent({
      name: 'assistant-xlsx',
      model,
      tools: { previewSheet },
    })
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    runtime.set('workbook', await loadWorkbookFromBase64(payload))
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())

    const result = await assistant.generate({ prompt: 'Aperçu de Synthese', runtime })
    expect(result.text).toBe('Aperçu lu.')
    expect(lastToolResult(model.calls[1]!)).toEqual({ rows: rows.slice(0, 5) })
    // The model sees the key of the tools object; the built-in read_artifact tool comes after the agent's own.
    expect(model.calls[0]!.tools?.map((tool) => tool.name)).toEqual(['previewSheet', 'read_artifact'])
    expect(previewSheet.id).toBe('excel.preview')
  })

  it('Outils orientés runtime: without a runtime the tool fails at once and the model is told why', async () => {
    let ran = false
    const previewSheet = createRuntimeTool({
      id: 'excel.preview',
      description: 'Aperçu',
      inputSchema: z.object({ sheet: z.string() }),
      execute: () => {
        ran = true
        return {}
      },
    })
    const model = mockModel([{ toolCalls: [{ name: 'previewSheet', args: { sheet: 'Synthese' } }] }, { text: 'Pas de classeur.' }])
    const result = await new Agent({ name: 'forgetful', model, tools: { previewSheet } }).generate({ prompt: 'Aperçu' })
    expect(ran).toBe(false)
    expect(result.text).toBe('Pas de classeur.')
    expect(JSON.stringify(model.calls[1]!.messages.at(-1))).toMatch(/ran without a RuntimeStore/)
  })

  it('Ressources déclaratives: registerRuntimeResource + runtime.load, disposed after the response', async () => {
    unregisters.push(
      registerRuntimeResource('excelWorkbook', {
        async loader(source: string, runtime) {
          const buffer = Buffer.from(source, 'base64')
          const workbook = await ExcelJS.Workbook.fromBuffer(buffer)
          runtime.set('workbook', workbook)
          return workbook
        },
        dispose(workbook) {
          workbook?.destroy()
        },
      }),
    )
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    await runtime.load('excelWorkbook', payload.base64)
    const workbook = runtime.require('workbook')
    expect(workbook.sheet('Synthese')).toHaveLength(8)

    const seen: number[] = []
    const countRows = createRuntimeTool({
      id: 'excel.count',
      description: 'Compte les lignes',
      inputSchema: z.object({ sheet: z.string() }),
      execute: ({ sheet }, { runtime: scoped }) => {
        seen.push(scoped.require<Workbook>('workbook').sheet(sheet).length)
        return seen.at(-1)
      },
    })
    const assistant = new Agent({
      name: 'assistant-xlsx',
      model: mockModel([{ toolCalls: [{ name: 'countRows', args: { sheet: 'Synthese' } }] }, { text: '8 lignes.' }]),
      tools: { countRows },
    })
    await assistant.generate({ prompt: 'Combien de lignes ?', runtime })
    expect(seen).toEqual([8])
    expect(workbook.destroyed).toBe(1)
    expect(runtime.pendingCleanups()).toEqual([])
  })

  it('Bonnes pratiques — Isolation asynchrone: tools reach the active runtime with RuntimeStore.current()', async () => {
    const whoAmI = createRuntimeTool({
      id: 'who.am.i',
      description: 'user',
      inputSchema: z.object({}),
      execute: () => RuntimeStore.requireCurrent<{ user: string }>().require('user'),
    })
    const model = mockModel([{ toolCalls: [{ name: 'whoAmI', args: {} }] }, { text: 'ok' }])
    await new Agent({ name: 'a', model, tools: { whoAmI } }).generate({ prompt: 'who', runtime: createRuntime({ defaults: { user: 'ada' } }) })
    expect(lastToolResult(model.calls[1]!)).toBe('ada')
  })

  it('Bonnes pratiques — Streaming: the runtime stays active until the stream closes, then cleanups run', async () => {
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    runtime.set('workbook', await loadWorkbookFromBase64(payload))
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
    const workbook = runtime.require('workbook')
    const previewSheet = createRuntimeTool({
      id: 'excel.preview',
      description: 'Aperçu',
      inputSchema: z.object({ sheet: z.string() }),
      execute: ({ sheet }, { runtime: scoped }) => ({ rows: extractPreview(scoped.require<Workbook>('workbook'), sheet).slice(0, 2) }),
    })
    const assistant = new Agent({
      name: 'assistant-stream',
      model: mockModel([{ toolCalls: [{ name: 'previewSheet', args: { sheet: 'Synthese' } }] }, { text: 'Deux KPI proposés.', chunkSize: 4 }]),
      tools: { previewSheet },
    })
    const stream = assistant.stream({ prompt: 'Analyse la feuille `Synthese`.', runtime })
    let text = ''
    let destroyedDuringStream = false
    for await (const event of stream) {
      if (event.type === 'text.delta') text += event.delta
      if (event.type === 'tool.result') destroyedDuringStream ||= workbook.destroyed > 0
    }
    expect(destroyedDuringStream).toBe(false)
    expect(text).toBe('Deux KPI proposés.')
    expect(workbook.destroyed).toBe(1)
    expect(await stream.text).toBe('Deux KPI proposés.')
  })
})

describe('seed 001 — RuntimeStore', () => {
  it('Instanciation with defaults, and the methods of the table', async () => {
    const initialWorkbook = await loadWorkbookFromBase64(payload)
    const runtime = new RuntimeStore<{ workbook: Workbook }>({
      defaults: { workbook: initialWorkbook },
    })
    expect(runtime.get('workbook')).toBe(initialWorkbook)
    expect(runtime.require('workbook')).toBe(initialWorkbook)
    expect(runtime.set('workbook', initialWorkbook)).toBe(runtime)
    const snapshot = runtime.snapshot()
    expect(snapshot.parent).toBe(runtime)
    expect(runtime.run(() => RuntimeStore.current())).toBe(runtime)
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
    expect(runtime.delete('workbook')).toBe(true)
    runtime.clear()
    await runtime.dispose()
    expect(initialWorkbook.destroyed).toBe(1)
  })

  it('createRuntime et withRuntime', async () => {
    const runtime = createRuntime<{ workbook: Workbook }>()
    runtime.set('workbook', await loadWorkbookFromBase64(payload))
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
    const workbook = runtime.require('workbook')

    let rowsSeen = 0
    await withRuntime(runtime, async (scoped) => {
      const loaded = scoped?.require('workbook')
      rowsSeen = loaded.sheet('Synthese').length
    })
    expect(rowsSeen).toBe(8)
    expect(workbook.destroyed).toBe(1)
  })

  it('Helpers statiques: RUNTIME_CONTEXT_FIELD, mergeExperimentalContext and resolveFromExperimentalContext', () => {
    const runtime = createRuntime<{ workbook: Workbook }>()
    const context = RuntimeStore.mergeExperimentalContext({ requestId: 'r1' }, runtime)
    expect(context[RUNTIME_CONTEXT_FIELD]).toBe(runtime)
    expect(RuntimeStore.resolveFromExperimentalContext(context)).toBe(runtime)
    expect(() => RuntimeStore.requireCurrent()).toThrow(/no RuntimeStore is active/)
  })

  it('Gestion des ressources: dispose is triggered by a manual dispose too', async () => {
    unregisters.push(
      registerRuntimeResource('excelWorkbook', {
        loader: (source: string) => Workbook.fromBuffer(Buffer.from(source, 'base64')),
        dispose: (workbook) => workbook?.destroy(),
      }),
    )
    const runtime = createRuntime()
    const workbook = await runtime.load<Workbook>('excelWorkbook', payload.base64)
    expect(runtime.require('excelWorkbook')).toBe(workbook)
    await runtime.dispose()
    expect(workbook.destroyed).toBe(1)
  })

  it('Intégration agents & outils: cleanups run even when the stream is cancelled', async () => {
    const runtime = createRuntime<{ workbook: Workbook }>()
    runtime.set('workbook', await loadWorkbookFromBase64(payload))
    runtime.onCleanup('workbook', (workbook) => workbook?.destroy())
    const workbook = runtime.require('workbook')
    const assistant = new Agent({ name: 'slow', model: mockModel([{ text: 'a long answer '.repeat(20), chunkSize: 2, delayMs: 200 }]) })
    const controller = new AbortController()
    const stream = assistant.stream({ prompt: 'go', runtime, signal: controller.signal })
    for await (const event of stream) {
      if (event.type === 'text.delta') controller.abort()
    }
    expect((await stream.result).finishReason).toBe('cancelled')
    expect(workbook.destroyed).toBe(1)
  })
})

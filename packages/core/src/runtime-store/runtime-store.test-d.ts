import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import type { Tool, ToolExecutionContext } from '../tools/tool.js'
import { createRuntimeTool } from '../tools/create-runtime-tool.js'
import { registerRuntimeResource } from './resource-registry.js'
import { RuntimeStore } from './runtime-store.js'
import { createRuntime, withRuntime } from './with-runtime.js'

interface Workbook {
  destroy(): void
  sheetNames: string[]
}
declare const workbook: Workbook

describe('RuntimeStore typing', () => {
  it('a typed store returns the declared type from require and get', () => {
    const runtime = new RuntimeStore<{ workbook: Workbook; userId: string }>()
    expectTypeOf(runtime.require('workbook')).toEqualTypeOf<Workbook>()
    expectTypeOf(runtime.get('userId')).toEqualTypeOf<string | undefined>()
    expectTypeOf(runtime.set('workbook', workbook)).toEqualTypeOf<typeof runtime>()
    // An explicit type is allowed on a known key.
    expectTypeOf(runtime.require<Workbook>('workbook')).toEqualTypeOf<Workbook>()
    // @ts-expect-error unknown key on a typed store
    runtime.require('workbok')
    // @ts-expect-error unknown key on a typed store, even with an explicit type
    runtime.require<Workbook>('workbok')
    // @ts-expect-error wrong value type
    runtime.set('userId', 42)
  })

  it('an untyped store accepts any key and an explicit type', () => {
    const runtime = new RuntimeStore()
    expectTypeOf(runtime.require('anything')).toEqualTypeOf<unknown>()
    expectTypeOf(runtime.require<Workbook>('workbook')).toEqualTypeOf<Workbook>()
    expectTypeOf(runtime.get<number>('count')).toEqualTypeOf<number | undefined>()
    // Explicit string-like types are values, not keys.
    expectTypeOf(runtime.require<string>('user')).toEqualTypeOf<string>()
    expectTypeOf(runtime.require<'a' | 'b'>('mode')).toEqualTypeOf<'a' | 'b'>()
  })

  it('interfaces work as state types, defaults are partial, snapshots keep the type', () => {
    interface State {
      workbook: Workbook
      locale: string
    }
    const runtime = createRuntime<State>({ defaults: { locale: 'fr' } })
    expectTypeOf(runtime).toEqualTypeOf<RuntimeStore<State>>()
    expectTypeOf(runtime.snapshot().require('locale')).toEqualTypeOf<string>()
    expectTypeOf(runtime.parent).toEqualTypeOf<RuntimeStore<State> | undefined>()
  })

  it('onCleanup handlers receive the value type of their key', () => {
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    runtime.onCleanup('workbook', (value) => {
      expectTypeOf(value).toEqualTypeOf<Workbook | undefined>()
      value?.destroy()
    })
  })

  it('a typed store is accepted where the kernel expects a RuntimeStore', () => {
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    expectTypeOf(runtime).toExtend<RuntimeStore>()
    expectTypeOf(runtime).toExtend<ToolExecutionContext['runtime']>()
  })

  it('withRuntime passes the typed snapshot and resolves to the awaited result', async () => {
    const runtime = createRuntime<{ workbook: Workbook }>()
    const names = withRuntime(runtime, async (scoped) => {
      expectTypeOf(scoped).toEqualTypeOf<RuntimeStore<{ workbook: Workbook }>>()
      return scoped?.require('workbook').sheetNames
    })
    expectTypeOf(names).toEqualTypeOf<Promise<string[]>>()
  })
})

describe('createRuntimeTool typing', () => {
  it('types runtime.require from the State parameter and the input from the schema', () => {
    const tool = createRuntimeTool<{ sheet: string }, { count: number }, { workbook: Workbook }>({
      id: 'excel.preview',
      description: 'preview',
      inputSchema: z.object({ sheet: z.string() }),
      execute(input, { runtime, callId }) {
        expectTypeOf(input.sheet).toEqualTypeOf<string>()
        expectTypeOf(runtime.require('workbook')).toEqualTypeOf<Workbook>()
        expectTypeOf(callId).toEqualTypeOf<string>()
        return { count: runtime.require('workbook').sheetNames.length }
      },
    })
    expectTypeOf(tool).toEqualTypeOf<Tool<{ sheet: string }, { count: number }>>()
  })

  it('infers input and output without type arguments (the seed example)', () => {
    const tool = createRuntimeTool({
      id: 'excel.preview',
      description: 'preview',
      inputSchema: z.object({ sheet: z.string() }),
      async execute({ sheet }, { runtime }) {
        const wb = runtime.require<Workbook>('workbook')
        return { rows: wb.sheetNames.filter((name) => name === sheet) }
      },
    })
    expectTypeOf(tool).toEqualTypeOf<Tool<{ sheet: string }, { rows: string[] }>>()
  })
})

describe('registerRuntimeResource typing', () => {
  it('types dispose from the loader value (the seed example)', () => {
    registerRuntimeResource('excelWorkbook', {
      async loader(source: string, runtime) {
        runtime.set('workbook', workbook)
        expectTypeOf(source).toEqualTypeOf<string>()
        return workbook
      },
      dispose(value) {
        expectTypeOf(value).toEqualTypeOf<Workbook>()
        value?.destroy()
      },
    })
  })
})

import { afterEach, describe, expect, it } from 'vitest'
import { DisposedValueError, DuplicateError, RuntimeStoreError } from '../errors/errors.js'
import { createRuntimeResourceRegistry, moduleRuntimeResources, registerRuntimeResource } from './resource-registry.js'
import { RuntimeStore } from './runtime-store.js'

class Workbook {
  destroyed = 0
  constructor(readonly bytes: Buffer) {}
  static async fromBuffer(buffer: Buffer): Promise<Workbook> {
    return new Workbook(buffer)
  }
  destroy(): void {
    this.destroyed++
  }
}

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

describe('registerRuntimeResource (module-level)', () => {
  it('returns an unregister function and rejects a duplicate name with DuplicateError', () => {
    const unregister = registerRuntimeResource('dup', { loader: () => 1 })
    expect(moduleRuntimeResources.has('dup')).toBe(true)
    expect(() => registerRuntimeResource('dup', { loader: () => 2 })).toThrow(DuplicateError)
    unregister()
    expect(moduleRuntimeResources.has('dup')).toBe(false)
    cleanups.push(registerRuntimeResource('dup', { loader: () => 3 }))
  })

  it('rejects a definition without a loader', () => {
    expect(() => registerRuntimeResource('broken', {} as never)).toThrow(/needs a loader/)
  })

  it('an old unregister function does not remove a later registration of the same name', () => {
    const first = registerRuntimeResource('reused', { loader: () => 'first' })
    first()
    cleanups.push(registerRuntimeResource('reused', { loader: () => 'second' }))
    first()
    expect(moduleRuntimeResources.has('reused')).toBe(true)
  })
})

describe('runtime.load', () => {
  it('stores the loader value under the resource name and disposes it at the end of the request', async () => {
    const disposed: string[] = []
    cleanups.push(registerRuntimeResource('greeting', { loader: (source: string) => `hello ${source}`, dispose: (value) => void disposed.push(value) }))
    const runtime = new RuntimeStore()
    expect(await runtime.load('greeting', 'ada')).toBe('hello ada')
    expect(runtime.require('greeting')).toBe('hello ada')
    const request = runtime.snapshot()
    await request.dispose()
    await runtime.dispose()
    expect(disposed).toEqual(['hello ada'])
    expect(() => runtime.get('greeting')).toThrow(DisposedValueError)
  })

  it('keeps the key the loader set itself (the seed: sets "workbook" and returns it) and disposes once', async () => {
    cleanups.push(
      registerRuntimeResource('excelWorkbook', {
        async loader(source: string, runtime) {
          const workbook = await Workbook.fromBuffer(Buffer.from(source, 'base64'))
          runtime.set('workbook', workbook)
          return workbook
        },
        dispose(workbook) {
          workbook?.destroy()
        },
      }),
    )
    const runtime = new RuntimeStore<{ workbook: Workbook }>()
    const loaded = await runtime.load<Workbook>('excelWorkbook', Buffer.from('xlsx').toString('base64'))
    expect(runtime.require('workbook')).toBe(loaded)
    expect(runtime.has('excelWorkbook')).toBe(false)
    expect(loaded.bytes.toString()).toBe('xlsx')
    await runtime.snapshot().dispose()
    expect(loaded.destroyed).toBe(1)
    expect(() => runtime.require('workbook')).toThrow(DisposedValueError)
    await runtime.dispose()
    expect(loaded.destroyed).toBe(1)
  })

  it('fails with a RuntimeStoreError listing what is registered when the name is unknown', async () => {
    cleanups.push(registerRuntimeResource('known', { loader: () => 1 }))
    const runtime = new RuntimeStore({ resources: createRuntimeResourceRegistry() })
    runtime.resources!.register('mine', { loader: () => 1 })
    const error = await runtime.load('unknown').catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(RuntimeStoreError)
    expect((error as Error).message).toContain('"unknown"')
    expect((error as Error).message).toContain('mine (runtime)')
    expect((error as Error).message).toContain('known (module)')
  })

  it('wraps a loader failure in a RuntimeStoreError keeping the cause, and registers no cleanup', async () => {
    const cause = new Error('bad base64')
    cleanups.push(registerRuntimeResource('failing', { loader: () => Promise.reject(cause), dispose: () => {} }))
    const runtime = new RuntimeStore()
    const error = await runtime.load('failing', 'x').catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(RuntimeStoreError)
    expect((error as Error).cause).toBe(cause)
    expect(runtime.pendingCleanups()).toEqual([])
  })

  it('looks up the runtime registry first, then the ambient (AgentRuntime) registry, then the module registry', async () => {
    cleanups.push(registerRuntimeResource('db', { loader: () => 'module' }))
    const ambient = createRuntimeResourceRegistry()
    ambient.register('db', { loader: () => 'extensions' })
    const own = createRuntimeResourceRegistry()
    own.register('db', { loader: () => 'runtime' })

    expect(await new RuntimeStore().load('db')).toBe('module')
    expect(await new RuntimeStore().run(() => new RuntimeStore().load('db'), { resources: ambient })).toBe('extensions')
    expect(await RuntimeStore.runWithResources(ambient, () => new RuntimeStore().load('db'))).toBe('extensions')
    const scoped = new RuntimeStore({ resources: own })
    expect(await scoped.run((store) => store.load('db'), { resources: ambient })).toBe('runtime')
    // Snapshots inherit the runtime registry; nested run() inherits the ambient one.
    expect(await scoped.snapshot().load('db')).toBe('runtime')
    expect(await new RuntimeStore().run(() => new RuntimeStore().run((inner) => inner.load('db')), { resources: ambient })).toBe('extensions')
  })

  it('scoped registries let two tenants use the same name without colliding', async () => {
    const tenantA = createRuntimeResourceRegistry()
    const tenantB = createRuntimeResourceRegistry()
    tenantA.register('creds', { loader: () => 'A' })
    tenantB.register('creds', { loader: () => 'B' })
    expect(() => tenantA.register('creds', { loader: () => 'again' })).toThrow(DuplicateError)
    const [a, b] = await Promise.all([new RuntimeStore({ resources: tenantA }).load('creds'), new RuntimeStore({ resources: tenantB }).load('creds')])
    expect([a, b]).toEqual(['A', 'B'])
    expect(tenantA.unregister('creds')).toBe(true)
    expect(tenantA.names()).toEqual([])
  })
})

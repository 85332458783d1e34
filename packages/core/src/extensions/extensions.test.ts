import { describe, expect, it } from 'vitest'
import { ConfigurationError, DuplicateError, NotFoundError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { ContextAdapter } from '../spec/context-adapter.js'
import { MemoryRunStore, MemorySessionStore, memoryStores } from '../stores/memory/memory-stores.js'
import { definePlugin, type Plugin } from './define-plugin.js'
import { Extensions } from './extensions.js'

function adapter(name: string): ContextAdapter {
  return { name, apply: () => {} }
}

describe('Extensions named registry', () => {
  it('register stores a value that get and require return', () => {
    const ext = new Extensions()
    const value = { id: 1 }
    expect(ext.register('cache', value)).toBe(ext)
    expect(ext.get('cache')).toBe(value)
    expect(ext.require('cache')).toBe(value)
    expect(ext.has('cache')).toBe(true)
    expect(ext.names()).toEqual(['cache'])
  })

  it('register rejects a duplicate name with DuplicateError and keeps the first value', () => {
    const ext = new Extensions().register('cache', 'first')
    let caught: unknown
    try {
      ext.register('cache', 'second')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(DuplicateError)
    expect((caught as DuplicateError).code).toBe('duplicate')
    expect((caught as Error).message).toContain('"cache"')
    expect((caught as Error).message).toContain('replace()')
    expect(ext.get('cache')).toBe('first')
  })

  it('replace swaps an existing value and also registers a new one', () => {
    const ext = new Extensions().register('cache', 'first')
    ext.replace('cache', 'second').replace('fresh', 3)
    expect(ext.get('cache')).toBe('second')
    expect(ext.get('fresh')).toBe(3)
    expect(ext.names()).toEqual(['cache', 'fresh'])
  })

  it('get returns undefined for an unknown name, and a registered falsy value as is', () => {
    const ext = new Extensions().register('zero', 0).register('nothing', undefined)
    expect(ext.get('missing')).toBeUndefined()
    expect(ext.get('zero')).toBe(0)
    expect(ext.has('nothing')).toBe(true)
    expect(ext.require('nothing')).toBeUndefined()
  })

  it('require throws NotFoundError whose message lists the registered names', () => {
    const ext = new Extensions().register('alpha', 1).register('beta', 2)
    let caught: unknown
    try {
      ext.require('gamma')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(NotFoundError)
    expect(SpindleError.isInstance(caught)).toBe(true)
    expect((caught as NotFoundError).code).toBe('not_found')
    const message = (caught as Error).message
    expect(message).toContain('"gamma"')
    expect(message).toContain('alpha, beta')
  })

  it('require on an empty registry says that nothing is registered', () => {
    expect(() => new Extensions().require('anything')).toThrow(/Registered names: \(none\)/)
  })
})

describe('Extensions slots', () => {
  it('has empty defaults for every slot', () => {
    const ext = new Extensions()
    expect(ext.providers.providerNames()).toEqual([])
    expect(ext.tools.size).toBe(0)
    expect(ext.context).toEqual([])
    expect(ext.stores).toEqual({})
    expect(ext.compaction).toBeUndefined()
    expect(ext.gate).toBeUndefined()
    expect(ext.events).toBeUndefined()
    expect(ext.queue).toBeUndefined()
  })

  it('setStores sets some stores, keeps the others and ignores undefined entries', () => {
    const ext = new Extensions()
    const sessions = new MemorySessionStore()
    ext.setStores({ sessions })
    expect(ext.stores.sessions).toBe(sessions)
    expect(ext.stores.runs).toBeUndefined()

    const runs = new MemoryRunStore()
    expect(ext.setStores({ runs, sessions: undefined })).toBe(ext)
    expect(ext.stores.sessions).toBe(sessions)
    expect(ext.stores.runs).toBe(runs)
  })

  it('setStores with a full bundle sets all six stores', () => {
    const ext = new Extensions()
    const bundle = memoryStores()
    ext.setStores(bundle)
    for (const kind of ['sessions', 'runs', 'executions', 'snapshots', 'embeddings', 'artifacts'] as const) {
      expect(ext.stores[kind]).toBe(bundle[kind])
    }
  })

  it('addContextAdapter keeps order and rejects a duplicate adapter name', () => {
    const ext = new Extensions()
    ext.addContextAdapter(adapter('notes')).addContextAdapter(adapter('memory'))
    expect(ext.context.map((entry) => entry.name)).toEqual(['notes', 'memory'])
    expect(() => ext.addContextAdapter(adapter('notes'))).toThrow(DuplicateError)
    expect(() => ext.addContextAdapter(adapter('notes'))).toThrow(/"notes"/)
    expect(ext.context).toHaveLength(2)
  })
})

describe('Extensions plugins', () => {
  it('definePlugin returns the plugin unchanged', () => {
    const plugin = { name: 'p', setup() {} }
    expect(definePlugin(plugin)).toBe(plugin)
  })

  it('use runs setup synchronously with the extensions and records the plugin', () => {
    const ext = new Extensions()
    let received: Extensions | undefined
    const plugin = definePlugin({
      name: 'named-values',
      setup(extensions) {
        received = extensions
        extensions.register('from-plugin', 42)
      },
    })
    expect(ext.use(plugin)).toBe(ext)
    expect(received).toBe(ext)
    expect(ext.get('from-plugin')).toBe(42)
    expect(ext.plugins).toEqual([plugin])
  })

  it('rejects a second plugin with the same name without running its setup', () => {
    const ext = new Extensions().use(definePlugin({ name: 'stores', setup() {} }))
    let ran = false
    expect(() => ext.use(definePlugin({ name: 'stores', setup: () => void (ran = true) }))).toThrow(DuplicateError)
    expect(ran).toBe(false)
    expect(ext.plugins).toHaveLength(1)
  })

  it('ready() waits for an async setup', async () => {
    const ext = new Extensions()
    let finished = false
    ext.use(
      definePlugin({
        name: 'slow',
        async setup(extensions) {
          await new Promise((resolve) => setTimeout(resolve, 5))
          extensions.register('late', 'value')
          finished = true
        },
      }),
    )
    expect(finished).toBe(false)
    expect(ext.get('late')).toBeUndefined()
    await ext.ready()
    expect(finished).toBe(true)
    expect(ext.get('late')).toBe('value')
  })

  it('ready() resolves at once when no setup is async', async () => {
    const ext = new Extensions().use(definePlugin({ name: 'sync', setup() {} }))
    await expect(ext.ready()).resolves.toBeUndefined()
  })

  it('an async setup failure is reported by ready() as a ConfigurationError naming the plugin, with the cause kept', async () => {
    const cause = new Error('no database at that path')
    const ext = new Extensions().use(
      definePlugin({
        name: 'broken-stores',
        async setup() {
          throw cause
        },
      }),
    )
    let caught: unknown
    try {
      await ext.ready()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigurationError)
    expect((caught as Error).message).toContain('"broken-stores"')
    expect((caught as Error).message).toContain('no database at that path')
    expect((caught as Error).cause).toBe(cause)
  })

  it('a synchronous setup failure propagates from use()', () => {
    const ext = new Extensions()
    expect(() =>
      ext.use(
        definePlugin({
          name: 'throws',
          setup() {
            throw new Error('bad option')
          },
        }),
      ),
    ).toThrow('bad option')
  })

  it('dispose() disposes plugins in reverse order of use', async () => {
    const order: string[] = []
    const make = (name: string): Plugin => definePlugin({ name, setup() {}, dispose: async () => void order.push(name) })
    const ext = new Extensions().use(make('a')).use(make('b')).use(make('c'))
    await ext.dispose()
    expect(order).toEqual(['c', 'b', 'a'])
  })

  it('dispose() runs every dispose even when one throws, and rethrows that error', async () => {
    const order: string[] = []
    const failure = new Error('close failed')
    const ext = new Extensions()
      .use(definePlugin({ name: 'a', setup() {}, dispose: () => void order.push('a') }))
      .use(
        definePlugin({
          name: 'b',
          setup() {},
          dispose() {
            order.push('b')
            throw failure
          },
        }),
      )
      .use(definePlugin({ name: 'c', setup() {}, dispose: () => void order.push('c') }))
      .use(definePlugin({ name: 'no-dispose', setup() {} }))
    await expect(ext.dispose()).rejects.toBe(failure)
    expect(order).toEqual(['c', 'b', 'a'])
  })

  it('dispose() surfaces several failures together as an AggregateError', async () => {
    const first = new Error('first')
    const second = new Error('second')
    const ran: string[] = []
    const ext = new Extensions()
      .use(definePlugin({ name: 'x', setup() {}, dispose: () => Promise.reject(first) }))
      .use(definePlugin({ name: 'y', setup() {}, dispose: () => void ran.push('y') }))
      .use(definePlugin({ name: 'z', setup() {}, dispose: () => Promise.reject(second) }))
    let caught: unknown
    try {
      await ext.dispose()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(AggregateError)
    expect((caught as AggregateError).errors).toEqual([second, first])
    expect(ran).toEqual(['y'])
  })

  it('dispose() waits for pending async setups first, even failed ones, and runs only once', async () => {
    const order: string[] = []
    const ext = new Extensions()
      .use(
        definePlugin({
          name: 'slow',
          async setup() {
            await new Promise((resolve) => setTimeout(resolve, 5))
            order.push('setup done')
          },
          dispose: () => void order.push('dispose slow'),
        }),
      )
      .use(
        definePlugin({
          name: 'failing',
          setup: () => Promise.reject(new Error('nope')),
          dispose: () => void order.push('dispose failing'),
        }),
      )
    await ext.dispose()
    expect(order).toEqual(['setup done', 'dispose failing', 'dispose slow'])
    await ext.dispose()
    expect(order).toHaveLength(3)
  })

  it('use() after dispose() is a ConfigurationError', async () => {
    const ext = new Extensions()
    await ext.dispose()
    expect(() => ext.use(definePlugin({ name: 'late', setup() {} }))).toThrow(ConfigurationError)
  })
})

describe('a plugin whose setup throws', () => {
  it('is not left in use: use() fails with a ConfigurationError naming it, it can be used again once fixed, and it is not disposed', async () => {
    const extensions = new Extensions()
    let disposed = 0
    let broken = true
    const plugin = definePlugin({
      name: 'db',
      setup() {
        if (broken) throw new Error('no connection string')
      },
      dispose() {
        disposed++
      },
    })
    expect(() => extensions.use(plugin)).toThrow(/plugin "db" failed to set up: no connection string/)
    expect(extensions.plugins).toEqual([])
    broken = false
    extensions.use(plugin)
    expect(extensions.plugins).toEqual([plugin])
    await extensions.dispose()
    expect(disposed).toBe(1)
  })
})

describe('the specificationVersion of adapters, strategies and observers', () => {
  it('takes v1 or none, and refuses another version with a ConfigurationError naming the plugin', () => {
    const extensions = new Extensions()
    extensions.addContextAdapter({ specificationVersion: 'v1', name: 'a', apply: () => {} }).addContextAdapter({ name: 'b', apply: () => {} })
    extensions.addObserver({ onEvent: () => {} })
    extensions.compaction = { specificationVersion: 'v1', name: 'keep', compact: async () => undefined }
    expect(extensions.context.map((adapter) => adapter.name)).toEqual(['a', 'b'])
    expect(extensions.compaction?.name).toBe('keep')

    const future = { specificationVersion: 'v2' } as unknown as { specificationVersion: 'v1' }
    expect(() => extensions.addContextAdapter({ ...future, name: 'next', apply: () => {} })).toThrow(ConfigurationError)
    expect(() => extensions.addContextAdapter({ ...future, name: 'next', apply: () => {} })).toThrow(
      '[spindle/core] context adapter "next" implements specificationVersion "v2", but this @spindle/core supports "v1"',
    )
    expect(() => extensions.addObserver({ ...future, onEvent: () => {} })).toThrow(/observer implements specificationVersion "v2"/)
    expect(() => {
      extensions.compaction = { ...future, name: 'next', compact: async () => undefined }
    }).toThrow(/compaction strategy "next" implements specificationVersion "v2"/)
    expect(extensions.compaction?.name).toBe('keep')
    expect(extensions.context).toHaveLength(2)
  })
})

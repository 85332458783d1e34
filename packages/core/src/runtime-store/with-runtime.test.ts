import { describe, expect, it } from 'vitest'
import { DisposedValueError } from '../errors/errors.js'
import { RuntimeStore } from './runtime-store.js'
import { createRuntime, withRuntime } from './with-runtime.js'

interface Workbook {
  name: string
  destroyed: boolean
}

function workbookRuntime() {
  const workbook: Workbook = { name: 'Synthese', destroyed: false }
  const runtime = createRuntime<{ workbook: Workbook }>({ defaults: { workbook } })
  runtime.onCleanup('workbook', (value) => {
    if (value) value.destroyed = true
  })
  return { runtime, workbook }
}

describe('createRuntime', () => {
  it('is new RuntimeStore(init)', () => {
    const runtime = createRuntime({ defaults: { a: 1 } })
    expect(runtime).toBeInstanceOf(RuntimeStore)
    expect(runtime.get('a')).toBe(1)
    expect(createRuntime().keys()).toEqual([])
  })
})

describe('withRuntime', () => {
  it('runs the seed example: the callback gets a scoped snapshot, bound as current, then disposed', async () => {
    const { runtime, workbook } = workbookRuntime()
    let scopedStore: RuntimeStore<{ workbook: Workbook }> | undefined
    const name = await withRuntime(runtime, async (scoped) => {
      scopedStore = scoped
      const loaded = scoped?.require('workbook')
      expect(RuntimeStore.current()).toBe(scoped)
      expect(workbook.destroyed).toBe(false)
      return loaded.name
    })
    expect(name).toBe('Synthese')
    expect(scopedStore?.parent).toBe(runtime)
    expect(workbook.destroyed).toBe(true)
    expect(() => runtime.get('workbook')).toThrow(DisposedValueError)
  })

  it('disposes after a sync callback and returns its value', async () => {
    const { runtime, workbook } = workbookRuntime()
    const result = withRuntime(runtime, (scoped) => scoped.require('workbook').name.length)
    await expect(result).resolves.toBe(8)
    expect(workbook.destroyed).toBe(true)
  })

  it('disposes when a sync callback throws, and rethrows its error as is', async () => {
    const { runtime, workbook } = workbookRuntime()
    const failure = new Error('sync failure')
    await expect(
      withRuntime(runtime, () => {
        throw failure
      }),
    ).rejects.toBe(failure)
    expect(workbook.destroyed).toBe(true)
  })

  it('disposes when an async callback rejects', async () => {
    const { runtime, workbook } = workbookRuntime()
    await expect(
      withRuntime(runtime, async () => {
        await Promise.resolve()
        throw new Error('async failure')
      }),
    ).rejects.toThrow('async failure')
    expect(workbook.destroyed).toBe(true)
  })

  it('keeps writes made in the callback out of the parent', async () => {
    const runtime = createRuntime<{ counter: number }>({ defaults: { counter: 1 } })
    await withRuntime(runtime, (scoped) => scoped.set('counter', 2))
    expect(runtime.get('counter')).toBe(1)
  })

  it('reports both the callback failure and cleanup failures together', async () => {
    const runtime = createRuntime().set('a', 1)
    runtime.onCleanup('a', () => {
      throw new Error('cleanup failure')
    })
    const failure = new Error('callback failure')
    const error = await withRuntime(runtime, () => {
      throw failure
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as AggregateError).errors.map((inner: Error) => inner.message)).toEqual(['callback failure', 'cleanup failure'])
    expect((error as Error).cause).toBe(failure)
  })

  it('rejects with the cleanup AggregateError when only cleanups fail', async () => {
    const runtime = createRuntime().set('a', 1)
    runtime.onCleanup('a', () => {
      throw new Error('cleanup failure')
    })
    await expect(withRuntime(runtime, () => 'ok')).rejects.toBeInstanceOf(AggregateError)
  })

  it('runs the callback with undefined when there is no runtime', async () => {
    await expect(withRuntime(undefined, (scoped) => scoped === undefined)).resolves.toBe(true)
  })
})

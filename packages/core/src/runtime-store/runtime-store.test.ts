import { describe, expect, it } from 'vitest'
import { DisposedValueError, RuntimeStoreError } from '../errors/errors.js'
import { SpindleError } from '../errors/spindle-error.js'
import { RUNTIME_CONTEXT_FIELD } from './runtime-context-field.js'
import { RuntimeStore } from './runtime-store.js'

class Resource {
  destroyed = 0
  constructor(readonly label: string) {}
  read(): string {
    if (this.destroyed) throw new Error(`${this.label} used after destroy`)
    return this.label
  }
  destroy(): void {
    this.destroyed++
  }
}

describe('RuntimeStore: Map semantics', () => {
  it('gets, sets (chainable), has, deletes and clears', () => {
    const runtime = new RuntimeStore<{ a: number; b: string }>()
    expect(runtime.set('a', 1).set('b', 'x')).toBe(runtime)
    expect(runtime.get('a')).toBe(1)
    expect(runtime.has('b')).toBe(true)
    expect(runtime.keys()).toEqual(['a', 'b'])
    expect(runtime.size).toBe(2)
    expect(runtime.delete('a')).toBe(true)
    expect(runtime.delete('a')).toBe(false)
    expect(runtime.get('a')).toBeUndefined()
    runtime.clear()
    expect(runtime.keys()).toEqual([])
  })

  it('starts from defaults, and createRuntime-style options name the store', () => {
    const runtime = new RuntimeStore<{ workbook: string }>({ defaults: { workbook: 'initial' }, name: 'files' })
    expect(runtime.require('workbook')).toBe('initial')
    expect(runtime.name).toBe('files')
  })

  it('require throws a RuntimeStoreError naming the key and listing the keys present', () => {
    const runtime = new RuntimeStore().set('user', 'ada').set('tenant', 't1')
    let caught: unknown
    try {
      runtime.require('workbook')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(RuntimeStoreError)
    expect((caught as Error).message).toContain('"workbook"')
    expect((caught as Error).message).toContain('Keys present: user, tenant')
    expect((caught as SpindleError).code).toBe('runtime_store')
    expect(() => new RuntimeStore().require('x')).toThrow(/Keys present: \(none\)/)
  })
})

describe('RuntimeStore: AsyncLocalStorage binding', () => {
  it('current() returns the store bound by run() across awaits, and undefined outside', async () => {
    const runtime = new RuntimeStore().set('k', 1)
    expect(RuntimeStore.current()).toBeUndefined()
    const seen = await runtime.run(async (store) => {
      expect(store).toBe(runtime)
      await new Promise((resolve) => setTimeout(resolve, 1))
      return RuntimeStore.requireCurrent().get('k')
    })
    expect(seen).toBe(1)
    expect(RuntimeStore.current()).toBeUndefined()
  })

  it('requireCurrent() fails with a RuntimeStoreError that says how to fix it', () => {
    expect(() => RuntimeStore.requireCurrent()).toThrow(RuntimeStoreError)
    expect(() => RuntimeStore.requireCurrent()).toThrow(/withRuntime/)
  })

  it('nested run() restores the outer store afterwards', () => {
    const outer = new RuntimeStore({ name: 'outer' })
    const inner = new RuntimeStore({ name: 'inner' })
    outer.run(() => {
      inner.run(() => expect(RuntimeStore.current()).toBe(inner))
      expect(RuntimeStore.current()).toBe(outer)
    })
  })
})

describe('RuntimeStore: dispose', () => {
  it('runs every cleanup (last registered first), clears, and calls handlers with their value and key', async () => {
    const order: string[] = []
    const runtime = new RuntimeStore<{ a: number; b: number }>().set('a', 1).set('b', 2)
    runtime.onCleanup('a', (value, key) => void order.push(`${key}=${value}`))
    runtime.onCleanup('b', async (value, key) => {
      await Promise.resolve()
      order.push(`${key}=${value}`)
    })
    await runtime.dispose()
    expect(order).toEqual(['b=2', 'a=1'])
    expect(runtime.pendingCleanups()).toEqual([])
  })

  it('runs all handlers when some throw, and rethrows every failure together as an AggregateError', async () => {
    const ran: string[] = []
    const runtime = new RuntimeStore().set('a', 1).set('b', 2).set('c', 3)
    runtime.onCleanup('a', () => {
      ran.push('a')
      throw new Error('a failed')
    })
    runtime.onCleanup('b', () => void ran.push('b'))
    runtime.onCleanup('c', async () => {
      ran.push('c')
      throw new Error('c failed')
    })
    const error = await runtime.dispose().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(ran.sort()).toEqual(['a', 'b', 'c'])
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as AggregateError).errors.map((inner: Error) => inner.message).sort()).toEqual(['a failed', 'c failed'])
    expect((error as Error).message).toMatch(/2 runtime cleanup\(s\).*keys: c, a/)
  })

  it('wraps even a single failure in an AggregateError (one shape for callers)', async () => {
    const runtime = new RuntimeStore().set('a', 1).onCleanup('a', () => {
      throw new Error('boom')
    })
    const error = await runtime.dispose().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as AggregateError).errors[0].message).toBe('boom')
  })

  it('keeps values without cleanups out after dispose (cleared) and fails loudly on disposed ones', async () => {
    const runtime = new RuntimeStore().set('plain', 1).set('resource', new Resource('r'))
    runtime.onCleanup('resource', (value) => (value as Resource).destroy())
    await runtime.dispose()
    expect(runtime.get('plain')).toBeUndefined()
    expect(() => runtime.get('resource')).toThrow(DisposedValueError)
    expect(runtime.has('resource')).toBe(false)
    runtime.set('resource', new Resource('again'))
    expect((runtime.require('resource') as Resource).read()).toBe('again')
  })

  it('a cleanup registered before its key is set releases the next value set there, or gets undefined', async () => {
    const released: unknown[] = []
    const runtime = new RuntimeStore()
    runtime.onCleanup('db', (value) => void released.push(value))
    runtime.onCleanup('never', (value) => void released.push(value))
    runtime.set('db', 'connection')
    await runtime.dispose()
    expect(released).toEqual([undefined, 'connection'])
    expect(() => runtime.get('db')).toThrow(DisposedValueError)
  })
})

describe('RuntimeStore: ownership across snapshots (DESIGN §2.4)', () => {
  it('snapshot() is a child with a parent, holding the same values', () => {
    const parent = new RuntimeStore().set('a', 1)
    const child = parent.snapshot()
    expect(child.parent).toBe(parent)
    expect(child.get('a')).toBe(1)
    expect(child.snapshot().parent).toBe(child)
  })

  it('runs each cleanup exactly once across a store and its snapshots, whoever disposes first (child first)', async () => {
    const resource = new Resource('wb')
    const parent = new RuntimeStore().set('workbook', resource)
    parent.onCleanup('workbook', (value) => (value as Resource).destroy())
    const child = parent.snapshot()
    const grandchild = child.snapshot()
    await grandchild.dispose()
    await child.dispose()
    await parent.dispose()
    expect(resource.destroyed).toBe(1)
  })

  it('runs each cleanup exactly once when the parent disposes first, and when disposers race', async () => {
    const first = new Resource('a')
    const parent = new RuntimeStore().set('a', first).onCleanup('a', (value) => (value as Resource).destroy())
    const children = [parent.snapshot(), parent.snapshot()]
    await parent.dispose()
    await Promise.all(children.map((child) => child.dispose()))
    expect(first.destroyed).toBe(1)

    let calls = 0
    const slow = new RuntimeStore().set('s', 1).onCleanup('s', async () => {
      calls++
      await new Promise((resolve) => setTimeout(resolve, 5))
    })
    const racers = [slow, slow.snapshot(), slow.snapshot(), slow.snapshot()]
    const settled: number[] = []
    await Promise.all(racers.map((store, index) => store.dispose().then(() => settled.push(index))))
    expect(calls).toBe(1)
    expect(settled).toHaveLength(4)
  })

  it('a disposer waits for a cleanup a sibling is running, so dispose() resolving means released', async () => {
    let finished = false
    const parent = new RuntimeStore().set('s', 1).onCleanup('s', async () => {
      await new Promise((resolve) => setTimeout(resolve, 10))
      finished = true
    })
    const child = parent.snapshot()
    const childDone = child.dispose()
    await parent.dispose()
    expect(finished).toBe(true)
    await childDone
  })

  it('once a value was disposed, get and require fail on every store of the family, naming the key and when', async () => {
    const resource = new Resource('wb')
    const parent = new RuntimeStore().set('workbook', resource)
    parent.onCleanup('workbook', (value) => (value as Resource).destroy())
    const request = parent.snapshot()
    const sibling = parent.snapshot()
    await request.dispose()
    for (const store of [parent, sibling, request, parent.snapshot()]) {
      expect(() => store.get('workbook')).toThrow(DisposedValueError)
      let caught: unknown
      try {
        store.require('workbook')
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(DisposedValueError)
      expect((caught as Error).message).toMatch(/"workbook" was disposed at \d{4}-\d\d-\d\dT/)
      expect((caught as SpindleError).details).toMatchObject({ key: 'workbook', disposedBy: request.name })
    }
    expect(resource.destroyed).toBe(1)
  })

  it('a value set without a cleanup is simply shared and survives the request', async () => {
    const shared = new Resource('config')
    const parent = new RuntimeStore().set('config', shared)
    const request = parent.snapshot()
    await request.dispose()
    expect(parent.get('config')).toBe(shared)
    expect(parent.snapshot().require('config')).toBe(shared)
    expect(shared.destroyed).toBe(0)
  })

  it('writes in a snapshot stay in it; the parent and sibling snapshots never see them', () => {
    const parent = new RuntimeStore<{ user: string; scratch?: number }>().set('user', 'ada')
    const one = parent.snapshot()
    const two = parent.snapshot()
    one.set('user', 'bob').set('scratch', 1)
    two.delete('user')
    expect(parent.get('user')).toBe('ada')
    expect(parent.has('scratch')).toBe(false)
    expect(two.has('scratch')).toBe(false)
    expect(one.get('user')).toBe('bob')
    parent.set('user', 'eve')
    expect(one.get('user')).toBe('bob')
    expect(two.get('user')).toBeUndefined()
  })

  it('a cleanup registered in a snapshot belongs to the snapshot only', async () => {
    const parent = new RuntimeStore()
    const request = parent.snapshot()
    const perRequest = new Resource('tmp')
    request.set('tmp', perRequest).onCleanup('tmp', (value) => (value as Resource).destroy())
    expect(parent.pendingCleanups()).toEqual([])
    await parent.dispose()
    expect(perRequest.destroyed).toBe(0)
    await request.dispose()
    expect(perRequest.destroyed).toBe(1)
  })

  it('the parent cleanup still releases its own value when the snapshot overwrote the key', async () => {
    const original = new Resource('original')
    const parent = new RuntimeStore().set('workbook', original).onCleanup('workbook', (value) => (value as Resource).destroy())
    const request = parent.snapshot()
    const replacement = new Resource('replacement')
    request.set('workbook', replacement)
    await request.dispose()
    expect(original.destroyed).toBe(1)
    expect(replacement.destroyed).toBe(0)
    expect(() => parent.get('workbook')).toThrow(DisposedValueError)
  })

  it('snapshot({ inheritCleanups: false }) borrows values without owning the parent cleanups', async () => {
    const resource = new Resource('wb')
    const parent = new RuntimeStore().set('workbook', resource).onCleanup('workbook', (value) => (value as Resource).destroy())
    const borrowed = parent.snapshot({ inheritCleanups: false })
    const stillBorrowing = parent.snapshot({ inheritCleanups: false })
    expect(borrowed.pendingCleanups()).toEqual([])
    await borrowed.dispose()
    expect(resource.destroyed).toBe(0)
    expect((parent.require('workbook') as Resource).read()).toBe('wb')
    await parent.dispose()
    expect(resource.destroyed).toBe(1)
    expect(() => stillBorrowing.get('workbook')).toThrow(DisposedValueError)
  })

  it('pendingCleanups() reports what is left, and nothing once the family ran it', async () => {
    const parent = new RuntimeStore().set('a', 1).onCleanup('a', () => {})
    const child = parent.snapshot()
    expect(parent.pendingCleanups()).toEqual(['a'])
    expect(child.pendingCleanups()).toEqual(['a'])
    await child.dispose()
    expect(parent.pendingCleanups()).toEqual([])
  })
})

describe('RuntimeStore: experimental context helpers', () => {
  it('mergeExperimentalContext carries the runtime under RUNTIME_CONTEXT_FIELD without touching base', () => {
    const runtime = new RuntimeStore()
    const base = { userId: 'u1' }
    const merged = RuntimeStore.mergeExperimentalContext(base, runtime)
    expect(merged).toEqual({ userId: 'u1', [RUNTIME_CONTEXT_FIELD]: runtime })
    expect(base).toEqual({ userId: 'u1' })
    expect(merged.userId).toBe('u1')
    expect(RuntimeStore.mergeExperimentalContext(undefined, runtime)[RUNTIME_CONTEXT_FIELD]).toBe(runtime)
    expect(RuntimeStore.mergeExperimentalContext(base, undefined)).toBe(base)
  })

  it('resolveFromExperimentalContext finds the runtime in the field, in a runtime field, or returns undefined', () => {
    const runtime = new RuntimeStore()
    expect(RuntimeStore.resolveFromExperimentalContext({ [RUNTIME_CONTEXT_FIELD]: runtime })).toBe(runtime)
    expect(RuntimeStore.resolveFromExperimentalContext({ runtime })).toBe(runtime)
    expect(RuntimeStore.resolveFromExperimentalContext(runtime)).toBe(runtime)
    expect(RuntimeStore.resolveFromExperimentalContext({ runtime: 'nope' })).toBeUndefined()
    expect(RuntimeStore.resolveFromExperimentalContext(undefined)).toBeUndefined()
    expect(RuntimeStore.resolveFromExperimentalContext(42)).toBeUndefined()
  })

  it('isInstance recognizes stores by their marker', () => {
    expect(RuntimeStore.isInstance(new RuntimeStore())).toBe(true)
    expect(RuntimeStore.isInstance({ get() {} })).toBe(false)
  })
})

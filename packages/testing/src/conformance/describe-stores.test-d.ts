// describeStores is generic over the author's bundle type: callbacks receive that type, no cast, and both
// factories may be synchronous or asynchronous.
import type { Stores } from '@spindle/core'
import { describe, expectTypeOf, it } from 'vitest'
import { describeStores, type StoreSuiteOptions } from '../index.js'

interface MyStores extends Stores {
  close(): void
  path: string
}

declare function openMyStores(path: string): MyStores

describe('describeStores typing', () => {
  it('passes the bundle type to cleanup and createSecondConnection, sync or async', () => {
    expectTypeOf(describeStores<MyStores>)
      .parameter(1)
      .toEqualTypeOf<StoreSuiteOptions<MyStores>>()
    const options: StoreSuiteOptions<MyStores> = {
      create: () => openMyStores('a.db'),
      createSecondConnection: (stores) => {
        expectTypeOf(stores).toEqualTypeOf<MyStores>()
        return openMyStores(stores.path)
      },
      cleanup: (stores) => stores.close(),
    }
    expectTypeOf(options.createSecondConnection!).returns.toEqualTypeOf<MyStores | Promise<MyStores>>()
    // Inferred from create, asynchronous both ways.
    type Inferred = Parameters<typeof describeStores<MyStores>>[1]
    expectTypeOf<Inferred['create']>().returns.toEqualTypeOf<MyStores | Promise<MyStores>>()
    // The bundle type is inferred from create: the callbacks get MyStores without annotation (never called here).
    const register = () =>
      describeStores('mine', {
        create: async () => openMyStores('b.db'),
        createSecondConnection: async (stores) => openMyStores(stores.path),
        cleanup: (stores) => {
          expectTypeOf(stores).toEqualTypeOf<MyStores>()
          stores.close()
        },
      })
    expectTypeOf(register).returns.toBeVoid()
  })
})

// Overhead of the per-request RuntimeStore lifecycle: snapshot() + run() + dispose() (`pnpm vitest bench --project @spindle/core`).
import { bench, describe } from 'vitest'
import { RuntimeStore } from './runtime-store.js'

function parentWith(values: number, cleanups: number): RuntimeStore {
  const parent = new RuntimeStore()
  for (let index = 0; index < values; index++) parent.set(`key${index}`, { index })
  for (let index = 0; index < cleanups; index++) parent.onCleanup(`key${index}`, () => {})
  return parent
}

describe('RuntimeStore per-request lifecycle', () => {
  const small = parentWith(4, 0)
  const large = parentWith(64, 0)

  bench('snapshot + run + dispose (4 values, no cleanup)', async () => {
    const scoped = small.snapshot()
    scoped.run(() => RuntimeStore.current()?.get('key0'))
    await scoped.dispose()
  })

  bench('snapshot + run + dispose (64 values, no cleanup)', async () => {
    const scoped = large.snapshot()
    scoped.run(() => RuntimeStore.current()?.get('key0'))
    await scoped.dispose()
  })

  bench('snapshot + run + per-request cleanup + dispose', async () => {
    const scoped = small.snapshot()
    await scoped.run(async (store) => {
      store.set('connection', { open: true }).onCleanup('connection', () => {})
    })
    await scoped.dispose()
  })

  bench('fresh parent with a cleanup, snapshot + dispose (cleanup runs once)', async () => {
    const parent = parentWith(4, 1)
    const scoped = parent.snapshot()
    await scoped.dispose()
    await parent.dispose()
  })
})

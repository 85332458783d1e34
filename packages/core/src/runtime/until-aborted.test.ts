import { describe, expect, it } from 'vitest'
import { untilAborted } from '../plugin-kit/index.js'

describe('untilAborted', () => {
  it('settles as the promise does while the signal stays quiet, and stops listening then', async () => {
    const controller = new AbortController()
    await expect(untilAborted(Promise.resolve(42), controller.signal)).resolves.toBe(42)
    await expect(untilAborted(Promise.reject(new Error('lookup failed')), controller.signal)).rejects.toThrow('lookup failed')
    // Aborting afterwards reaches no leftover listener (it would reject an already-settled promise: harmless, but a leak).
    let listeners = 0
    const counted = new AbortController()
    const add = counted.signal.addEventListener.bind(counted.signal)
    const remove = counted.signal.removeEventListener.bind(counted.signal)
    counted.signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add
    counted.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove
    await untilAborted(Promise.resolve('ok'), counted.signal)
    expect(listeners).toBe(0)
  })

  it('rejects with the signal’s reason as soon as it aborts, without waiting for the promise', async () => {
    const controller = new AbortController()
    const never = new Promise<never>(() => {})
    const left = untilAborted(never, controller.signal)
    const reason = new Error('the run was cancelled')
    controller.abort(reason)
    await expect(left).rejects.toBe(reason)
    // Already aborted: rejected at once.
    await expect(untilAborted(never, controller.signal)).rejects.toBe(reason)
  })

  it('is the promise itself without a signal', () => {
    const promise = Promise.resolve(1)
    expect(untilAborted(promise, undefined)).toBe(promise)
  })
})

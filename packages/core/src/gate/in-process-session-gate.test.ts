import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { describe, expect, it } from 'vitest'
import { AbortedError, SessionBusyError } from '../errors/errors.js'
import type { AcquireOptions, SessionLease } from '../spec/session-gate.js'
import { InProcessSessionGate } from './in-process-session-gate.js'

const queue = (owner: string, extra: Partial<AcquireOptions> = {}): AcquireOptions => ({
  owner,
  onContention: 'queue',
  maxQueue: 16,
  queueTimeoutMs: 10_000,
  ...extra,
})

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('InProcessSessionGate', () => {
  it('grants a free session at once, with token 1 and a live lease signal', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    expect(gate.specificationVersion).toBe('v1')
    const lease = await gate.acquire('s1', queue('run-1'))
    expect(lease).toMatchObject({ sessionId: 's1', owner: 'run-1', token: 1 })
    expect(lease.signal.aborted).toBe(false)
    expect(await gate.state('s1')).toEqual({ sessionId: 's1', holder: 'run-1', token: 1, queued: 0 })
  })

  it('many leases held at once, each watched by its run, raise no listener-leak warning', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const leases = await Promise.all(Array.from({ length: 50 }, (_, index) => gate.acquire(`s${index}`, queue(`run-${index}`))))
      // As AgentRuntime does: one listener of its own per run.
      const listeners = leases.map(() => () => {})
      leases.forEach((lease, index) => lease.signal.addEventListener('abort', listeners[index]!, { once: true }))
      await settle()
      for (const [index, lease] of leases.entries()) {
        expect(lease.signal.aborted).toBe(false)
        lease.signal.removeEventListener('abort', listeners[index]!)
        await lease.release()
      }
      expect(warnings.map((warning) => warning.message)).toEqual([])
      expect(await gate.state('s0')).toEqual({ sessionId: 's0', holder: undefined, token: undefined, queued: 0 })
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('allows one holder per session: a second acquirer waits until release', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const first = await gate.acquire('s1', queue('run-1'))
    let granted: SessionLease | undefined
    const waiting = gate.acquire('s1', queue('run-2')).then((lease) => (granted = lease))
    await settle()
    expect(granted).toBeUndefined()
    expect(await gate.state('s1')).toMatchObject({ holder: 'run-1', queued: 1 })
    await first.release()
    await waiting
    expect(granted).toMatchObject({ owner: 'run-2', token: 2 })
    expect(await gate.state('s1')).toEqual({ sessionId: 's1', holder: 'run-2', token: 2, queued: 0 })
  })

  it('grants three waiters in FIFO order', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('holder'))
    const order: string[] = []
    const waiters = ['a', 'b', 'c'].map((owner) =>
      gate.acquire('s1', queue(owner)).then((lease) => {
        order.push(owner)
        return lease
      }),
    )
    await settle()
    expect(order).toEqual([])
    expect((await gate.state('s1')).queued).toBe(3)
    await holder.release()
    const a = await waiters[0]!
    await settle()
    expect(order).toEqual(['a'])
    await a.release()
    const b = await waiters[1]!
    await settle()
    expect(order).toEqual(['a', 'b'])
    await b.release()
    const c = await waiters[2]!
    expect(order).toEqual(['a', 'b', 'c'])
    expect([a.token, b.token, c.token]).toEqual([2, 3, 4])
    await c.release()
    expect(await gate.state('s1')).toEqual({ sessionId: 's1', holder: undefined, token: undefined, queued: 0 })
  })

  it('in reject mode a busy session fails at once with SessionBusyError naming the session', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    await gate.acquire('s1', queue('run-1'))
    const error = await rejection(gate.acquire('s1', queue('run-2', { onContention: 'reject' })))
    expect(error).toBeInstanceOf(SessionBusyError)
    expect((error as SessionBusyError).code).toBe('session_busy')
    expect((error as SessionBusyError).isRetryable).toBe(true)
    expect((error as Error).message).toContain('"s1"')
    expect((await gate.state('s1')).queued).toBe(0)
  })

  it('reject mode still grants a free session', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    await expect(gate.acquire('s1', queue('run-1', { onContention: 'reject' }))).resolves.toMatchObject({ token: 1 })
  })

  it('bounds the queue by maxQueue: one waiter more is rejected, and a slot frees up when a waiter is granted', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('holder'))
    const first = gate.acquire('s1', queue('w1', { maxQueue: 2 }))
    const second = gate.acquire('s1', queue('w2', { maxQueue: 2 }))
    const error = await rejection(gate.acquire('s1', queue('w3', { maxQueue: 2 })))
    expect(error).toBeInstanceOf(SessionBusyError)
    expect((error as Error).message).toContain('maxQueue = 2')
    expect((await gate.state('s1')).queued).toBe(2)
    await holder.release()
    await first
    const third = gate.acquire('s1', queue('w3', { maxQueue: 2 }))
    expect((await gate.state('s1')).queued).toBe(2)
    await (await first).release()
    await (await second).release()
    await expect(third).resolves.toMatchObject({ owner: 'w3' })
  })

  it('maxQueue 0 rejects every waiter', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    await gate.acquire('s1', queue('holder'))
    await expect(gate.acquire('s1', queue('w', { maxQueue: 0 }))).rejects.toBeInstanceOf(SessionBusyError)
  })

  it('a waiter past queueTimeoutMs fails with SessionBusyError and leaves the queue', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('holder'))
    const started = performance.now()
    const timedOut = gate.acquire('s1', queue('slow', { queueTimeoutMs: 30 }))
    const patient = gate.acquire('s1', queue('patient'))
    const error = await rejection(timedOut)
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
    expect(error).toBeInstanceOf(SessionBusyError)
    expect((error as Error).message).toContain('queueTimeoutMs')
    expect((await gate.state('s1')).queued).toBe(1)
    await holder.release()
    // The timed-out waiter is never granted: the next in line is.
    await expect(patient).resolves.toMatchObject({ owner: 'patient', token: 2 })
  })

  it('an abort while waiting fails with AbortedError carrying the reason, and removes the waiter', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('holder'))
    const controller = new AbortController()
    const aborted = gate.acquire('s1', queue('cancelled', { signal: controller.signal }))
    const next = gate.acquire('s1', queue('next'))
    await settle()
    const reason = new Error('user cancelled')
    controller.abort(reason)
    const error = await rejection(aborted)
    expect(error).toBeInstanceOf(AbortedError)
    expect((error as Error).cause).toBe(reason)
    expect((await gate.state('s1')).queued).toBe(1)
    await holder.release()
    await expect(next).resolves.toMatchObject({ owner: 'next' })
  })

  it('an already aborted signal fails before touching the session', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const controller = new AbortController()
    controller.abort()
    await expect(gate.acquire('s1', queue('run', { signal: controller.signal }))).rejects.toBeInstanceOf(AbortedError)
    expect(await gate.state('s1')).toEqual({ sessionId: 's1', holder: undefined, token: undefined, queued: 0 })
    await expect(gate.acquire('s1', queue('run'))).resolves.toMatchObject({ token: 1 })
  })

  it('tokens strictly increase across acquisitions, also after the slot was freed', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const tokens: number[] = []
    for (let i = 0; i < 5; i++) {
      const lease = await gate.acquire('s1', queue(`run-${i}`))
      tokens.push(lease.token)
      await lease.release()
      expect((await gate.state('s1')).holder).toBeUndefined()
    }
    const holder = await gate.acquire('s1', queue('h'))
    const waiter = gate.acquire('s1', queue('w'))
    await holder.release()
    tokens.push(holder.token, (await waiter).token)
    expect(tokens).toEqual([1, 2, 3, 4, 5, 6, 7])
  })

  it('tokens increase per session while other sessions take leases in between', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const tokensOf: Record<string, number[]> = { a: [], b: [] }
    for (const sessionId of ['a', 'b', 'b', 'a', 'a', 'b']) {
      const lease = await gate.acquire(sessionId, queue('run'))
      tokensOf[sessionId]!.push(lease.token)
      await lease.release()
    }
    for (const tokens of Object.values(tokensOf)) expect(tokens).toEqual([...tokens].sort((x, y) => x - y))
    expect(new Set([...tokensOf.a!, ...tokensOf.b!]).size).toBe(6)
  })

  it('a released session leaves nothing behind: 50,000 sessions run once keep the heap flat', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const gate = new InProcessSessionGate()
    const cycle = async (from: number, to: number) => {
      for (let index = from; index < to; index++) {
        const lease = await gate.acquire(`session-${index}-${'x'.repeat(48)}`, queue('run'))
        await lease.release()
      }
    }
    await cycle(0, 1_000)
    gc()
    const before = process.memoryUsage().heapUsed
    await cycle(1_000, 51_000)
    gc()
    const grown = process.memoryUsage().heapUsed - before
    // A token kept per session (its id, the number and the map entry) was ~130 bytes each: 6.5 MB here.
    expect(grown).toBeLessThan(1_000_000)
  })

  it('releasing twice is harmless and never grants the slot twice', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('h'))
    const a = gate.acquire('s1', queue('a'))
    const b = gate.acquire('s1', queue('b'))
    await holder.release()
    await holder.release()
    await a
    await settle()
    expect(await gate.state('s1')).toMatchObject({ holder: 'a', queued: 1 })
    await (await a).release()
    await expect(b).resolves.toMatchObject({ owner: 'b' })
  })

  it('a waiter released from the queue does not keep the timeout or the abort listener armed', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const holder = await gate.acquire('s1', queue('h'))
    const controller = new AbortController()
    const waiter = gate.acquire('s1', queue('w', { queueTimeoutMs: 30, signal: controller.signal }))
    await holder.release()
    const lease = await waiter
    controller.abort()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await gate.state('s1')).toMatchObject({ holder: 'w', token: lease.token })
  })

  it('independent sessions never block each other', async () => {
    const gate = new InProcessSessionGate({ tokenBase: 0 })
    const s1 = await gate.acquire('s1', queue('a', { onContention: 'reject' }))
    const s2 = await gate.acquire('s2', queue('b', { onContention: 'reject' }))
    expect(s1.token).toBe(1)
    expect(s2.token).toBe(2)
    const waiting = gate.acquire('s1', queue('c'))
    await expect(gate.acquire('s3', queue('d', { onContention: 'reject' }))).resolves.toMatchObject({ sessionId: 's3', token: 3 })
    expect((await gate.state('s2')).queued).toBe(0)
    await s1.release()
    // One counter for the gate: the next lease of s1 is above every token handed out before it.
    await expect(waiting).resolves.toMatchObject({ sessionId: 's1', token: 4 })
    expect(await gate.state('s2')).toMatchObject({ holder: 'b', token: 2 })
  })

  it('state() of an unknown session is empty', async () => {
    expect(await new InProcessSessionGate({ tokenBase: 0 }).state('nobody')).toEqual({ sessionId: 'nobody', holder: undefined, token: undefined, queued: 0 })
  })
})

describe('fencing tokens across restarts', () => {
  it('a gate created later (a restarted process) hands out higher tokens than an earlier one', async () => {
    const before = new InProcessSessionGate()
    const first = await before.acquire('s', { owner: 'a', onContention: 'queue', maxQueue: 1, queueTimeoutMs: 100 })
    await first.release()
    const second = await before.acquire('s', { owner: 'b', onContention: 'queue', maxQueue: 1, queueTimeoutMs: 100 })
    await new Promise((resolve) => setTimeout(resolve, 2))
    const restarted = new InProcessSessionGate()
    const third = await restarted.acquire('s', { owner: 'c', onContention: 'queue', maxQueue: 1, queueTimeoutMs: 100 })
    expect(second.token).toBeGreaterThan(first.token)
    expect(third.token).toBeGreaterThan(second.token)
    expect(Number.isSafeInteger(third.token)).toBe(true)
  })
})

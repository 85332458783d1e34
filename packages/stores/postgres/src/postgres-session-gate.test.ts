// PostgresSessionGate against the real server, with separate pools standing in for separate processes.
import { AbortedError, type AcquireOptions, SessionBusyError, StaleFenceError } from '@spindle/core'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { PostgresSessionGate, type PostgresSessionGateOptions } from './postgres-session-gate.js'
import { postgresStores } from './postgres-stores.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

function setup(): { schema: string; gate(options?: Omit<PostgresSessionGateOptions, 'schema'>): PostgresSessionGate } {
  const schema = randomSchemaName()
  cleanups.push(() => dropSchema(schema))
  return {
    schema,
    gate(options = {}) {
      const gate = new PostgresSessionGate({ connectionString: databaseUrl, schema, ...options })
      cleanups.push(() => gate.close())
      return gate
    },
  }
}

const queue = (owner: string, extra: Partial<AcquireOptions> = {}): AcquireOptions => ({
  owner,
  onContention: 'queue',
  maxQueue: 10,
  queueTimeoutMs: 10_000,
  ...extra,
})

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describePostgres('PostgresSessionGate', () => {
  it('tokens strictly increase per session; state shows the holder and the queue', async () => {
    const { gate } = setup()
    const a = gate()
    const first = await a.acquire('s1', queue('run-1'))
    expect(first.token).toBe(1)
    expect(await a.state('s1')).toEqual({ sessionId: 's1', holder: 'run-1', token: 1, queued: 0 })
    await first.release()
    await first.release() // idempotent
    expect(await a.state('s1')).toEqual({ sessionId: 's1', queued: 0 })
    const second = await a.acquire('s1', queue('run-2'))
    expect(second.token).toBe(2)
    const other = await a.acquire('s2', queue('run-3'))
    expect(other.token).toBe(1)
    await Promise.all([second.release(), other.release()])
  })

  it('one holder at a time across pools, and waiters are served in FIFO order', async () => {
    const { gate } = setup()
    const gates = [gate(), gate(), gate()]
    const holder = await gates[0]!.acquire('s', queue('holder'))
    const order: string[] = []
    const waiters: Promise<void>[] = []
    for (let i = 0; i < 5; i++) {
      const owner = `w${i}`
      waiters.push(
        gates[i % 3]!.acquire('s', queue(owner)).then(async (lease) => {
          order.push(owner)
          const state = await gates[1]!.state('s')
          expect(state.holder).toBe(owner)
          await new Promise((resolve) => setTimeout(resolve, 10))
          await lease.release()
        }),
      )
      await until(async () => (await gates[2]!.state('s')).queued === i + 1)
    }
    await holder.release()
    await Promise.all(waiters)
    expect(order).toEqual(['w0', 'w1', 'w2', 'w3', 'w4'])
    expect((await gates[0]!.state('s')).queued).toBe(0)
  })

  it("onContention 'reject', maxQueue and queueTimeoutMs refuse with SessionBusyError and leave no waiter behind", async () => {
    const { gate } = setup()
    const [a, b] = [gate(), gate()]
    const held = await a.acquire('s', queue('holder'))
    await expect(b.acquire('s', { ...queue('r'), onContention: 'reject' })).rejects.toBeInstanceOf(SessionBusyError)
    const waiting = b.acquire('s', queue('w1', { maxQueue: 1 }))
    await until(async () => (await a.state('s')).queued === 1)
    await expect(b.acquire('s', queue('w2', { maxQueue: 1 }))).rejects.toThrow(/maxQueue/)
    await expect(a.acquire('s', queue('slow', { queueTimeoutMs: 150 }))).rejects.toThrow(/waited 150 ms/)
    expect((await a.state('s')).queued).toBe(1)
    await held.release()
    const next = await waiting
    expect(next.owner).toBe('w1')
    await next.release()
  })

  it('an aborted waiter leaves the queue with AbortedError', async () => {
    const { gate } = setup()
    const a = gate()
    const held = await a.acquire('s', queue('holder'))
    const controller = new AbortController()
    const waiting = a.acquire('s', queue('w', { signal: controller.signal }))
    await until(async () => (await a.state('s')).queued === 1)
    controller.abort()
    await expect(waiting).rejects.toBeInstanceOf(AbortedError)
    expect((await a.state('s')).queued).toBe(0)
    await held.release()
  })

  it("a crashed holder's session is free within the lease TTL, with a higher token; the stale holder's writes are refused", async () => {
    const { schema, gate } = setup()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const crashed = new PostgresSessionGate({ connectionString: databaseUrl, schema, leaseTtlMs: 600 })
    const old = await crashed.acquire('s', queue('dies'))
    await stores.migrate()
    await stores.sessions.createSession({ id: 's' })
    await stores.sessions.append('s', [{ kind: 'message', message: { role: 'user', content: 'before' } }], { fence: old.token })
    await crashed.close() // heartbeats stop, nothing is released: as if the process died
    const survivor = gate({ leaseTtlMs: 600 })
    const started = Date.now()
    const lease = await survivor.acquire('s', queue('takes-over'))
    expect(Date.now() - started).toBeLessThan(600 + 1000)
    expect(lease.token).toBeGreaterThan(old.token)
    await stores.sessions.append('s', [{ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'new holder' }] } }], {
      fence: lease.token,
    })
    await expect(
      stores.sessions.append('s', [{ kind: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'stale' }] } }], { fence: old.token }),
    ).rejects.toBeInstanceOf(StaleFenceError)
    expect((await stores.sessions.listEntries('s')).map((entry) => entry.seq)).toEqual([1, 2])
    await lease.release()
  })

  it('a holder whose lease expired and was taken over sees lease.signal aborted', async () => {
    const { gate } = setup()
    // The heartbeat comes too late on purpose, so the lease expires under its holder.
    const slow = gate({ leaseTtlMs: 200, heartbeatMs: 700 })
    const lease = await slow.acquire('s', queue('slow'))
    const taker = await gate({ leaseTtlMs: 5000 }).acquire('s', queue('taker'))
    expect(taker.token).toBe(lease.token + 1)
    await until(async () => lease.signal.aborted, 3000)
    expect(String((lease.signal.reason as Error).message)).toMatch(/lost/)
    await taker.release()
    await lease.release() // a stale release does not free the new holder's lease
    expect((await slow.state('s')).holder).toBeUndefined()
  })

  it('the holder renews its lease with heartbeats (it outlives the TTL)', async () => {
    const { gate } = setup()
    const a = gate({ leaseTtlMs: 300 })
    const lease = await a.acquire('s', queue('keeper'))
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(lease.signal.aborted).toBe(false)
    expect((await a.state('s')).holder).toBe('keeper')
    await expect(gate().acquire('s', { ...queue('x'), onContention: 'reject' })).rejects.toBeInstanceOf(SessionBusyError)
    await lease.release()
  })

  it('a connection idle in a transaction holding one session row never stalls another session', async () => {
    const { schema, gate } = setup()
    const a = gate()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    await stores.migrate()
    await stores.sessions.createSession({ id: 'locked' })
    await stores.sessions.createSession({ id: 'free' })
    const held = await a.acquire('locked', queue('holder'))
    const idle = new pg.Client({ connectionString: databaseUrl })
    await idle.connect()
    cleanups.push(async () => {
      await idle.query('ROLLBACK').catch(() => {})
      await idle.end()
    })
    await idle.query('BEGIN')
    await idle.query(`SELECT * FROM "${schema}".gate_leases WHERE session_id = 'locked' FOR UPDATE`)
    await idle.query(`SELECT * FROM "${schema}".sessions WHERE id = 'locked' FOR UPDATE`)
    // …and now that connection sits idle in its transaction.
    const started = Date.now()
    const other = await a.acquire('free', queue('other'))
    await stores.sessions.append('free', [{ kind: 'message', message: { role: 'user', content: 'hi' } }], { fence: other.token })
    expect((await a.state('free')).holder).toBe('other')
    await other.release()
    expect(Date.now() - started).toBeLessThan(1500)
    // A waiter on the locked session gives up on time instead of hanging on the row lock.
    await expect(a.acquire('locked', queue('late', { queueTimeoutMs: 300 }))).rejects.toBeInstanceOf(SessionBusyError)
    await idle.query('ROLLBACK')
    await held.release()
  })

  it('joining the queue runs again on a new connection when its backend is terminated mid-transaction', async () => {
    const { schema, gate } = setup()
    const a = gate()
    const held = await a.acquire('s', queue('holder'))
    // A stranger holds the session's lease row: the waiter's enqueue transaction blocks on it (FOR UPDATE).
    const stranger = new pg.Client({ connectionString: databaseUrl })
    await stranger.connect()
    cleanups.push(async () => {
      await stranger.query('ROLLBACK').catch(() => {})
      await stranger.end()
    })
    await stranger.query('BEGIN')
    await stranger.query(`SELECT * FROM "${schema}".gate_leases WHERE session_id = 's' FOR UPDATE`)
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    cleanups.push(() => admin.end())
    const blockedEnqueue = async (): Promise<number | undefined> => {
      const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [
        `%"${schema}".gate_leases WHERE session_id = $1 FOR UPDATE`,
      ])
      return rows[0]?.pid
    }
    const waiting = gate().acquire('s', queue('waiter'))
    const outcome = waiting.then(
      () => 'acquired',
      (error: unknown) => error,
    )
    let terminated: number | undefined
    await until(async () => (terminated = await blockedEnqueue()) !== undefined)
    await admin.query('SELECT pg_terminate_backend($1)', [terminated])
    // The transaction runs again on a new connection, and waits for the same row (a rejection would end the wait).
    await until(async () => {
      const pid = await blockedEnqueue()
      if (pid !== undefined && pid !== terminated) return true
      const settled = await Promise.race([outcome, new Promise((resolve) => setTimeout(resolve, 0, 'pending'))])
      if (settled !== 'pending') throw new Error(`acquire settled while the retry was expected: ${String(settled)}`)
      return false
    })
    await stranger.query('ROLLBACK')
    await until(async () => (await a.state('s')).queued === 1)
    await held.release()
    const lease = await waiting
    expect([lease.owner, lease.token]).toEqual(['waiter', held.token + 1])
    await lease.release()
  })

  it('waiters are woken by NOTIFY, and fall back to polling when the LISTEN connection is killed', async () => {
    const { gate } = setup()
    const notified = gate({ pollIntervalMs: 10_000 })
    const releaser = gate()
    const held = await releaser.acquire('s', queue('holder'))
    await notified.ready()
    const waiting = notified.acquire('s', queue('woken'))
    await until(async () => (await releaser.state('s')).queued === 1)
    const released = Date.now()
    await held.release()
    const lease = await waiting
    expect(Date.now() - released).toBeLessThan(2000) // far below the 10 s poll interval: the notification woke it

    const polling = gate({ pollIntervalMs: 100 })
    await polling.ready()
    const pid = await polling.listenerBackendPid()
    expect(pid).toBeTypeOf('number')
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    await admin.query('SELECT pg_terminate_backend($1)', [pid])
    await admin.end()
    const second = polling.acquire('s', queue('polled'))
    await until(async () => (await releaser.state('s')).queued === 1)
    await lease.release()
    const polled = await second
    expect(polled.token).toBe(lease.token + 1)
    await polled.release()
  })
})

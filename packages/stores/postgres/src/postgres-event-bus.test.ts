// PostgresEventBus across separate pools (and a child process), against the real server.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { AgentEvent, LaggedEvent } from '@spindle/core'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { PostgresEventBus } from './postgres-event-bus.js'
import { postgresStores } from './postgres-stores.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'
import { take } from './test-support/take-events.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

function setup() {
  const schema = randomSchemaName()
  cleanups.push(() => dropSchema(schema))
  return {
    schema,
    async bus(): Promise<PostgresEventBus> {
      const bus = new PostgresEventBus({ connectionString: databaseUrl, schema })
      cleanups.push(() => bus.close())
      await bus.ready()
      return bus
    },
  }
}

function delta(runId: string, seq: number, text = `d${seq}`): AgentEvent {
  return { type: 'text.delta', runId, sessionId: 's', seq, timestamp: Date.now(), step: 1, delta: text }
}

const seqs = (events: Array<AgentEvent | LaggedEvent>) => events.map((event) => ('seq' in event ? event.seq : event.type))

describePostgres('PostgresEventBus', () => {
  it('delivers across pools in order, filtered; a large payload by reference, read from the run log once its step committed it, never written there by the bus', async () => {
    const { schema, bus } = setup()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const [publisher, receiver] = [await bus(), await bus()]
    const all = receiver.subscribe()
    const onlyRunB = receiver.subscribe({ filter: (event) => event.runId === 'b' })
    const large = 'é'.repeat(10_000) // 20 KB of UTF-8: far over NOTIFY's 8000-byte limit
    const events = [1, 2, 3, 4, 5].map((seq) => delta('a', seq, seq === 3 ? large : undefined))
    const receiving = take(all, 6)
    for (const event of events) publisher.publish(event)
    publisher.publish(delta('b', 1))
    await publisher.flush()
    await new Promise((resolve) => setTimeout(resolve, 300))
    // The large event is not in the log ahead of its step's commit: a kill now would leave no orphan there.
    expect(await stores.runs.listEvents('a')).toEqual([])
    await stores.runs.appendEvents('a', events) // the step commits
    const received = await receiving
    expect(received.filter((event) => 'runId' in event && event.runId === 'a').map((event) => (event as AgentEvent).seq)).toEqual([1, 2, 3, 4, 5])
    expect(received.filter((event) => 'runId' in event && event.runId === 'b')).toHaveLength(1)
    expect((received.find((event) => 'seq' in event && event.runId === 'a' && event.seq === 3) as Extract<AgentEvent, { type: 'text.delta' }>).delta).toBe(
      large,
    )
    expect(seqs(await take(onlyRunB, 1))).toEqual([1])
  })

  it('a live subscriber whose LISTEN connection is terminated mid-step gets the events published meanwhile once the step commits them, in order, each once', async () => {
    const { schema, bus } = setup()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const [publisher, receiver] = [await bus(), await bus()]
    const iterator = receiver.subscribe()[Symbol.asyncIterator]()
    const step = Array.from({ length: 12 }, (_, index) => delta('m', index + 1))
    for (const event of step.slice(0, 6)) publisher.publish(event)
    const first: number[] = []
    while (first.length < 6) first.push(((await iterator.next()).value as AgentEvent).seq)
    const pid = await receiver.listenerBackendPid()
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    cleanups.push(() => admin.end())
    await admin.query('SELECT pg_terminate_backend($1, 5000)', [pid])
    // Published while the receiver is disconnected (lost to it), and none of it in the log yet: the step is running.
    for (const event of step.slice(6, 10)) publisher.publish(event)
    await publisher.flush()
    for (let attempt = 0; attempt < 100 && [undefined, pid].includes(await receiver.listenerBackendPid()); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    for (const event of step.slice(10)) publisher.publish(event)
    await publisher.flush()
    await new Promise((resolve) => setTimeout(resolve, 200))
    await stores.runs.appendEvents('m', step) // the step commits
    const rest: number[] = []
    while (rest.length < 6) rest.push(((await iterator.next()).value as AgentEvent).seq)
    await iterator.return?.()
    expect(first.concat(rest)).toEqual(step.map((event) => event.seq))
  })

  it('after a crash, the run.resumed that declares the discarded numbers is delivered (and no earlier number again)', async () => {
    const { bus } = setup()
    const [publisher, receiver] = [await bus(), await bus()]
    const received = take(receiver.subscribe(), 4)
    for (const seq of [1, 2, 3]) publisher.publish(delta('k', seq))
    // The crashed attempt reserved up to 70; its log ended at 1. The resume continues at 71.
    publisher.publish({ type: 'run.resumed', fromStep: 0, discarded: { from: 2, to: 70 }, runId: 'k', sessionId: 's', seq: 71, timestamp: Date.now() })
    expect(seqs(await received)).toEqual([1, 2, 3, 71])
  })

  it('events holding U+0000 and unpaired surrogates arrive exactly, by NOTIFY and by reference to the run log', async () => {
    const { schema, bus } = setup()
    const receiver = await bus()
    const errors: unknown[] = []
    const publisher = new PostgresEventBus({ connectionString: databaseUrl, schema, onError: (error) => errors.push(error) })
    cleanups.push(() => publisher.close())
    await publisher.ready()
    const texts = ['a\u0000b', 'split \uD83D', '\uDE00 emoji', '\uFDD0marker', `large \u0000 \uD83D ${'é'.repeat(5_000)}`]
    const received = take(receiver.subscribe(), texts.length)
    texts.forEach((text, index) => publisher.publish(delta('u', index + 1, text)))
    await publisher.flush()
    // The step commits: the large one is read from the log by reference.
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    await stores.runs.appendEvents(
      'u',
      texts.map((text, index) => delta('u', index + 1, text)),
    )
    expect(errors).toEqual([])
    expect((await received).map((event) => (event as Extract<AgentEvent, { type: 'text.delta' }>).delta)).toEqual(texts)
  })

  it('a burst of events goes out in a few NOTIFY statements, delivered in order; a failed statement is reported and the next ones still go', async () => {
    const schema = randomSchemaName()
    cleanups.push(() => dropSchema(schema))
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    cleanups.push(() => pool.end())
    const notifies: number[] = []
    let failNext = false
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>
    ;(pool as unknown as { query: typeof query }).query = (...args) => {
      const text = String(args[0])
      if (text.includes('pg_notify')) {
        notifies.push(((args[1] as unknown[])[1] as unknown[]).length)
        if (failNext) {
          failNext = false
          return Promise.reject(new Error('NOTIFY refused'))
        }
      }
      return query(...args)
    }
    const errors: unknown[] = []
    const publisher = new PostgresEventBus({ pool, schema, onError: (error) => errors.push(error) })
    cleanups.push(() => publisher.close())
    await publisher.ready()
    const receiver = new PostgresEventBus({ connectionString: databaseUrl, schema })
    cleanups.push(() => receiver.close())
    await receiver.ready()
    const received = take(receiver.subscribe(), 600)
    for (let seq = 1; seq <= 600; seq++) publisher.publish(delta('burst', seq))
    await publisher.flush()
    // 600 events published in one turn: three statements of at most 256 notifications.
    expect(notifies).toEqual([256, 256, 88])
    expect(seqs(await received)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1))
    notifies.length = 0
    failNext = true
    publisher.publish(delta('other', 1))
    await publisher.flush()
    for (let seq = 2; seq <= 4; seq++) publisher.publish(delta('other', seq))
    await publisher.flush()
    expect(errors.map((error) => (error as Error).message)).toEqual(['NOTIFY refused'])
    expect(notifies).toEqual([1, 3])
    // Events published across the microtasks of one turn (a run between two awaits) share a statement too.
    notifies.length = 0
    publisher.publish(delta('other', 5))
    await Promise.resolve()
    publisher.publish(delta('other', 6))
    await new Promise<void>((resolve) => queueMicrotask(resolve))
    publisher.publish(delta('other', 7))
    await publisher.flush()
    expect(notifies).toEqual([3])
  })

  it('a run whose first notifications were never heard (its worker killed after its commit, before its NOTIFY) is delivered from its first logged event', async () => {
    const { schema, bus } = setup()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const [publisher, receiver] = [await bus(), await bus()]
    const received = take(receiver.subscribe(), 4)
    await new Promise((resolve) => setTimeout(resolve, 5))
    // Logged by the killed worker, never notified; the resume's run.resumed is the first thing the subscriber hears.
    await stores.runs.appendEvents(
      'lost',
      [1, 2, 3].map((seq) => delta('lost', seq)),
    )
    publisher.publish({ type: 'run.resumed', fromStep: 1, discarded: { from: 4, to: 9 }, runId: 'lost', sessionId: 's', seq: 10, timestamp: Date.now() })
    expect(seqs(await received)).toEqual([1, 2, 3, 10])
  })

  it('a bus without subscribers neither parses nor fetches what it hears; once subscribed it delivers from then on', async () => {
    const { schema, bus } = setup()
    const publisher = await bus()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    let fetches = 0
    const runs = new Proxy(stores.runs, {
      get(target, key, receiver) {
        // Fetches by reference (one event); a read of the run's earlier log is no fetch of what was heard.
        if (key === 'listEvents') return (...args: Parameters<typeof target.listEvents>) => (args[1]?.limit === 1 && fetches++, target.listEvents(...args))
        const value = Reflect.get(target, key, receiver) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const receiver = new PostgresEventBus({ connectionString: databaseUrl, schema, runs })
    cleanups.push(() => receiver.close())
    await receiver.ready()
    const large = 'x'.repeat(9_000) // sent by reference: a bus that handled it would fetch it from the log
    await stores.runs.appendEvents('quiet', [delta('quiet', 1, large), delta('quiet', 2, large)]) // their step committed
    publisher.publish(delta('quiet', 1, large))
    await publisher.flush()
    // A query on the LISTEN connection answers after the notification committed before it was sent.
    await receiver.listenerBackendPid()
    const events = receiver.subscribe()
    publisher.publish(delta('quiet', 2, large))
    const [received] = await take(events, 1)
    expect(seqs([received!])).toEqual([2])
    // Notifications are handled in order: had the first one been handled, its fetch would have come first.
    expect(fetches).toBe(1)
  })

  it('a slow subscriber with bounded capacity gets a lagged event, then the newest events', async () => {
    const { bus } = setup()
    const [publisher, receiver] = [await bus(), await bus()]
    const slow = receiver.subscribe({ capacity: 5 })
    const fast = receiver.subscribe()
    for (let seq = 1; seq <= 40; seq++) publisher.publish(delta('r', seq))
    expect(seqs(await take(fast, 40))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
    const slowEvents = await take(slow, 6)
    expect(slowEvents[0]).toMatchObject({ type: 'lagged', missed: 35 })
    expect(seqs(slowEvents.slice(1))).toEqual([36, 37, 38, 39, 40])
  })

  it('a subscriber whose connection dropped catches up from the log by seq, gap-free', async () => {
    const { schema, bus } = setup()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const [publisher, receiver] = [await bus(), await bus()]
    const events = receiver.subscribe()
    const publishLogged = async (seq: number) => {
      // As the kernel does: the event is in the run log, then broadcast.
      await stores.runs.appendEvents('r', [delta('r', seq)])
      publisher.publish(delta('r', seq))
    }
    await stores.runs.createRun({ id: 'r', sessionId: 's', request: {} })
    for (let seq = 1; seq <= 3; seq++) await publishLogged(seq)
    const first = await take(events, 3)
    expect(seqs(first)).toEqual([1, 2, 3])
    const later = receiver.subscribe() // take() above ended the first subscription
    const pid = await receiver.listenerBackendPid()
    expect(pid).toBeTypeOf('number')
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    cleanups.push(() => admin.end())
    // One round trip: wait until the receiver's LISTEN backend is gone, then log and NOTIFY seq 4-8. The receiver
    // reconnects only after a backoff, so these notifications are lost to it: only the log can bring them back.
    const notify = (seq: number) => `SELECT pg_notify('spindle_events_${schema}', '${JSON.stringify(delta('r', seq))}');`
    await admin.query(
      `SELECT pg_terminate_backend(${pid}, 5000);
       INSERT INTO "${schema}".run_events (run_id, seq, event) SELECT 'r', s, jsonb_build_object('type', 'text.delta', 'runId', 'r', 'sessionId', 's', 'seq', s, 'timestamp', 0, 'step', 1, 'delta', 'd' || s) FROM generate_series(4, 8) AS s;
       ${[4, 5, 6, 7, 8].map(notify).join('\n')}`,
    )
    const seen: number[] = []
    for (let attempt = 0; attempt < 100 && (await receiver.listenerBackendPid()) === undefined; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await receiver.listenerBackendPid()).not.toBe(pid)
    await publishLogged(9)
    for (const event of await take(later, 6)) seen.push((event as AgentEvent).seq)
    expect(seen).toEqual([4, 5, 6, 7, 8, 9])
  })

  it('receives events published by a child process (a separate OS process)', async () => {
    const { schema, bus } = setup()
    const receiver = await bus()
    const events = receiver.subscribe()
    const root = join(import.meta.dirname, '..', '..', '..', '..')
    const child = spawn(
      join(root, 'node_modules', '.bin', 'tsx'),
      ['--conditions=@spindle/source', join(import.meta.dirname, 'test-support', 'publish-events.ts'), databaseUrl, schema, 'child-run', '5'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve))
    const received = await take(events, 5, 15_000)
    expect(await exit, stderr).toBe(0)
    expect(seqs(received)).toEqual([1, 2, 3, 4, 5])
    expect((received[2] as Extract<AgentEvent, { type: 'text.delta' }>).delta).toHaveLength(20_000)
  }, 30_000)

  it('subscriptions end on abort and on close', async () => {
    const { bus } = setup()
    const receiver = await bus()
    const controller = new AbortController()
    const aborted = receiver.subscribe({ signal: controller.signal })
    const pending = aborted[Symbol.asyncIterator]().next()
    controller.abort()
    expect(await pending).toEqual({ value: undefined, done: true })
    const open = receiver.subscribe()[Symbol.asyncIterator]().next()
    await receiver.close()
    expect(await open).toEqual({ value: undefined, done: true })
  })
})

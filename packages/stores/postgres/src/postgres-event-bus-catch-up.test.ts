// PostgresEventBus catch-up after a lost LISTEN connection, for a run created long before the outage: the regression
// of a clean-clone CI soak (a run enqueued early in a burst ran whole while LISTEN was down and was never delivered,
// because the catch-up read only the 200 newest-created runs).
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

describePostgres('PostgresEventBus catch-up', () => {
  it('after a reconnect, delivers a run created before 300 newer runs that ran whole while LISTEN was down, from its first event', async () => {
    const schema = randomSchemaName()
    cleanups.push(() => dropSchema(schema))
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    cleanups.push(() => stores.close())
    const receiver = new PostgresEventBus({ connectionString: databaseUrl, schema })
    cleanups.push(() => receiver.close())
    await receiver.ready()
    // The burst: the run that will run during the outage is created first, 300 runs after it (a catch-up that reads
    // the newest-created runs only would never reach it).
    await stores.runs.createRun({ id: 'early', sessionId: 's', request: {} })
    for (let index = 0; index < 300; index++) await stores.runs.createRun({ id: `later_${String(index).padStart(3, '0')}`, sessionId: 's', request: {} })
    const events = receiver.subscribe({ filter: (event) => event.runId === 'early' })
    const pid = await receiver.listenerBackendPid()
    expect(pid).toBeTypeOf('number')
    const admin = new pg.Client({ connectionString: databaseUrl })
    await admin.connect()
    cleanups.push(() => admin.end())
    // One round trip: the receiver's LISTEN backend is gone, then the early run logs its whole life (5 events) and
    // its record is updated, as a worker does; the NOTIFYs are lost to the receiver (it reconnects after a backoff).
    const notify = (seq: number) =>
      `SELECT pg_notify('spindle_events_${schema}', '${JSON.stringify({ type: 'text.delta', runId: 'early', sessionId: 's', seq, timestamp: 0, step: 1, delta: `d${seq}` })}');`
    await admin.query(
      `SELECT pg_terminate_backend(${pid}, 5000);
       INSERT INTO "${schema}".run_events (run_id, seq, event) SELECT 'early', s, jsonb_build_object('type', 'text.delta', 'runId', 'early', 'sessionId', 's', 'seq', s, 'timestamp', 0, 'step', 1, 'delta', 'd' || s) FROM generate_series(1, 5) AS s;
       UPDATE "${schema}".runs SET status = 'completed', updated_at = (extract(epoch from clock_timestamp()) * 1000)::bigint WHERE id = 'early';
       ${[1, 2, 3, 4, 5].map(notify).join('\n')}`,
    )
    const received = await take(events, 5, 8000)
    expect(await receiver.listenerBackendPid()).not.toBe(pid)
    expect(received.map((event) => ('seq' in event ? event.seq : event.type))).toEqual([1, 2, 3, 4, 5])
  })
})

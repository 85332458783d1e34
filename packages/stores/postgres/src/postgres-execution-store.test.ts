// The journal on PostgreSQL: what the conformance kit does not pin down, checked against the memory store.
import { memoryStores, type ExecutionStore } from '@spindle/core'
import { afterEach, expect, it } from 'vitest'
import { postgresStores, type PostgresStores } from './index.js'
import { databaseUrl, describePostgres, dropSchema, randomSchemaName } from './test-support/postgres-test-database.js'

const opened: Array<{ stores: PostgresStores; schema: string }> = []
afterEach(async () => {
  for (const { stores, schema } of opened.splice(0)) {
    await stores.close()
    await dropSchema(schema)
  }
})

/** Finishes calls whose tools returned null, and nothing (a cancelled call), through single methods and a batch. */
async function journal(executions: ExecutionStore): Promise<unknown> {
  const call = (callId: string) => ({ key: `r:1:${callId}`, runId: 'r', step: 1, callId, toolName: 'delete_file', args: { path: 'a' } })
  for (const callId of ['null', 'none', 'batched']) await executions.start(call(callId))
  const finished = [await executions.finish('r:1:null', { status: 'succeeded', result: null }), await executions.finish('r:1:none', { status: 'cancelled' })]
  const batch = (executions as { batch?: { write(writes: unknown[]): Promise<unknown[]> } }).batch
  const write = { type: 'execution.finish', key: 'r:1:batched', outcome: { status: 'succeeded', result: null } } as const
  finished.push(batch ? ((await batch.write([write]))[0] as never) : await executions.finish(write.key, write.outcome))
  const shape = (record: { result?: unknown; status: string } | undefined) => ({
    status: record?.status,
    hasResult: record !== undefined && 'result' in record,
    result: record?.result,
  })
  return {
    returned: finished.map(shape),
    read: [shape(await executions.get('r:1:null')), shape(await executions.get('r:1:none')), shape(await executions.get('r:1:batched'))],
    listed: (await executions.listByRun('r')).map(shape),
    again: shape((await executions.start(call('null'))).record),
  }
}

describePostgres('PostgresExecutionStore', () => {
  it('keeps a null tool result (jsonb null) apart from no result, like the memory and SQLite stores', async () => {
    const expected = await journal(memoryStores().executions)
    expect(expected).toMatchObject({ read: [{ hasResult: true, result: null }, { hasResult: false }, { hasResult: true, result: null }] })
    const schema = randomSchemaName()
    const stores = postgresStores({ connectionString: databaseUrl, schema })
    opened.push({ stores, schema })
    await stores.migrate()
    expect(await journal(stores.executions)).toEqual(expected)
  })
})

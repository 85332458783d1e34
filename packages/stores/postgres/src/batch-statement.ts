// A batch of store writes as ONE statement: each write is a data-modifying CTE of it, so the batch commits
// atomically in one round trip (no BEGIN / COMMIT), and a guard in the final SELECT fails the whole statement when
// a write would have been refused (a stale fence, another lastSeq, a missing session, run or journal row).
import type { ExecutionRecord, NewExecution, RunSnapshot, SessionEntry, StoreWrite, StoreWriteResult } from '@spindle/core'
import { createHash } from 'node:crypto'
import { assertKey, fromText, toJsonbText, toText } from './jsonb-text.js'
import {
  type ExecutionRow,
  readExecutions,
  type StartedColumns,
  startedFields,
  startExecutions,
  startsPayload,
  toExecution,
  upsertStarts,
} from './postgres-execution-store.js'
import { type RunRow, runPatchAssignments, toRun } from './postgres-run-store.js'
import type { SqlExecutor } from './sql-database.js'

type Write<T extends StoreWrite['type']> = Extract<StoreWrite, { type: T }>

/** The text of the error the guard raises (a cast that fails): the batch is then written as a transaction instead. */
export const rejectedBatchMarker = 'spindle batch rejected'

/** One statement for a batch, and how its one row becomes the writes' results. */
export interface BatchStatement {
  readonly text: string
  readonly values: unknown[]
  /** The writes' results, in order. `executor` reads journal rows again when another writer raced this one (rare). */
  settle(row: Record<string, unknown>, executor: SqlExecutor): Promise<StoreWriteResult[]>
}

/**
 * The batch as one statement, or undefined when it writes a row twice (two appends to one session, two updates of
 * one run, one journal key or snapshot twice): the CTEs of one statement all see the rows as they were before it,
 * so such a batch is written as a transaction, statement after statement. Throws what a write's validation throws.
 */
export function batchStatement(schema: string, writes: readonly StoreWrite[]): BatchStatement | undefined {
  if (!writtenOnce(writes)) return undefined
  const values: unknown[] = []
  const parameter = (value: unknown, cast?: string): string => {
    values.push(value)
    return cast === undefined ? `$${values.length}` : `$${values.length}::${cast}`
  }
  const at = Date.now()
  const now = parameter(at, 'bigint')
  const ctes: string[] = []
  const columns: string[] = []
  const guards: string[] = []
  const starts: Array<Write<'execution.start'>> = []
  const logs: Array<Write<'run.events'>> = []
  const snapshots: RunSnapshot[] = []
  writes.forEach((write, index) => {
    if (write.type === 'session.append') {
      const count = parameter(write.entries.length, 'bigint')
      const id = parameter(write.sessionId, 'text')
      const fence = parameter(write.fence ?? null, 'bigint')
      const expected = parameter(write.expectedLastSeq ?? null, 'bigint')
      // The seq range is reserved, and the fence checked and raised, under the session row's lock (as `append` does).
      ctes.push(`a${index} AS (UPDATE ${schema}.sessions SET last_seq = last_seq + ${count},
        updated_at = CASE WHEN ${count} > 0 THEN GREATEST(updated_at, ${now}) ELSE updated_at END, fence = COALESCE(${fence}, fence)
        WHERE id = ${id} AND (${fence} IS NULL OR fence IS NULL OR fence <= ${fence}) AND (${expected} IS NULL OR last_seq = ${expected}) RETURNING last_seq)`)
      if (write.entries.length > 0) {
        for (const entry of write.entries) if (entry.runId !== undefined) assertKey(entry.runId, 'entry runId')
        const payload = toJsonbText(
          write.entries.map((entry) => ({ kind: entry.kind, body: entry.kind === 'message' ? entry.message : entry.compaction, run_id: entry.runId ?? null })),
        )
        ctes.push(`e${index} AS (INSERT INTO ${schema}.session_entries (session_id, seq, kind, body, run_id, created_at)
          SELECT ${id}, r.last_seq - ${count} + e.ordinality, e.value->>'kind', e.value->'body', e.value->>'run_id', ${now}
          FROM a${index} AS r CROSS JOIN jsonb_array_elements(${parameter(payload, 'jsonb')}) WITH ORDINALITY AS e)`)
      }
      columns.push(`(SELECT last_seq FROM a${index}) AS c${index}`)
      guards.push(`EXISTS (SELECT FROM a${index})`)
    } else if (write.type === 'run.update') {
      const assignments = runPatchAssignments(write.patch, parameter, now)
      ctes.push(`u${index} AS (UPDATE ${schema}.runs SET ${assignments.join(', ')} WHERE id = ${parameter(write.runId, 'text')} RETURNING *)`)
      columns.push(`(SELECT to_json(u${index}) FROM u${index}) AS c${index}`)
      guards.push(`EXISTS (SELECT FROM u${index})`)
    } else if (write.type === 'execution.start') starts.push(write)
    else if (write.type === 'execution.finish') {
      // One UPDATE per key, by its primary key (an index scan in any cached plan, however small the table was when
      // it was planned). Only a `started` record moves; a finished one, or a key never started, fails the guard:
      // the transaction path then returns the finished record as `finish` does, or throws NotFoundError.
      const { outcome } = write
      ctes.push(`f${index} AS (UPDATE ${schema}.executions SET status = ${parameter(outcome.status, 'text')},
        result = ${parameter(outcome.result === undefined ? null : toJsonbText(outcome.result), 'jsonb')},
        error = ${parameter(outcome.error == null ? null : toJsonbText(outcome.error), 'jsonb')}, finished_at = ${now}
        WHERE key = ${parameter(toText(write.key), 'text')} AND status = 'started'
        RETURNING key, run_id, step, call_id, tool_name, args, attempt, started_at)`)
      columns.push(`(SELECT to_json(f${index}) FROM f${index}) AS c${index}`)
      guards.push(`EXISTS (SELECT FROM f${index})`)
    } else if (write.type === 'run.events') {
      if (write.events.length > 0) logs.push(write)
    } else snapshots.push(write.snapshot)
  })
  if (starts.length > 0) {
    const payload = parameter(startsPayload(starts.map(({ execution }) => execution)), 'jsonb')
    ctes.push(`xs AS (${upsertStarts(schema, payload, now)}
      RETURNING x.*, (x.xmax = 0) AS created, (x.result IS NOT NULL) AS has_result)`)
    // A created row is all the caller's: only its key comes back. A key not returned is terminal (left alone),
    // read once committed (rare: a resumed run's journal).
    columns.push(`(SELECT json_agg(CASE WHEN xs.created THEN to_json(xs.key) ELSE to_json(xs) END) FROM xs) AS starts`)
  }
  if (logs.length > 0) {
    for (const log of logs) assertKey(log.runId, 'event runId')
    const payload = toJsonbText(logs.map((log) => ({ run_id: log.runId, events: log.events })))
    ctes.push(`ev AS (INSERT INTO ${schema}.run_events (run_id, seq, event)
      SELECT l.value->>'run_id', (e.value->>'seq')::bigint, e.value
      FROM jsonb_array_elements(${parameter(payload, 'jsonb')}) AS l CROSS JOIN LATERAL jsonb_array_elements(l.value->'events') AS e
      ON CONFLICT (run_id, seq) DO NOTHING)`)
  }
  if (snapshots.length > 0) {
    const rows = snapshots.map((snapshot) => {
      assertKey(snapshot.runId, 'snapshot runId')
      assertKey(snapshot.sessionId, 'snapshot sessionId')
      return `(${parameter(snapshot.runId, 'text')}, ${parameter(snapshot.version, 'bigint')}, ${parameter(snapshot.sessionId, 'text')}, ${parameter(
        toJsonbText(snapshot.state),
        'jsonb',
      )}, ${parameter(snapshot.createdAt, 'bigint')})`
    })
    ctes.push(`sn AS (INSERT INTO ${schema}.snapshots (run_id, version, session_id, state, created_at) VALUES ${rows.join(', ')}
      ON CONFLICT (run_id, version) DO UPDATE SET session_id = EXCLUDED.session_id, state = EXCLUDED.state, created_at = EXCLUDED.created_at)`)
  }
  // The guard: a failed cast aborts the statement, and with it every CTE's write. Its text depends on the CTEs'
  // rows, so the planner cannot fold it; it is evaluated only when a condition fails.
  const guard =
    guards.length === 0
      ? 'NULL::integer AS rejected'
      : `CASE WHEN ${guards.join(' AND ')} THEN NULL ELSE ('${rejectedBatchMarker}: ' || concat_ws(' ', ${guards.map((condition) => `(${condition})::text`).join(', ')}))::integer END AS rejected`
  const text = `WITH ${ctes.join(',\n')}\nSELECT ${[guard, ...columns].join(', ')}`
  return { text, values, settle: (row, executor) => settle(schema, writes, at, row, executor) }
}

/** True when no row is written twice by the batch (see `batchStatement`). */
function writtenOnce(writes: readonly StoreWrite[]): boolean {
  const rows = new Set<string>()
  for (const write of writes) {
    let row: string
    if (write.type === 'session.append') row = `s\u0000${write.sessionId}`
    else if (write.type === 'run.update') row = `r\u0000${write.runId}`
    else if (write.type === 'execution.start') row = `x\u0000${write.execution.key}`
    else if (write.type === 'execution.finish') row = `x\u0000${write.key}`
    else if (write.type === 'snapshot.save') row = `n\u0000${write.snapshot.runId}\u0000${write.snapshot.version}`
    else continue
    if (rows.has(row)) return false
    rows.add(row)
  }
  return true
}

/** The writes' results from the statement's row: built from what the caller wrote, and the rows it did not write. */
async function settle(
  schema: string,
  writes: readonly StoreWrite[],
  at: number,
  row: Record<string, unknown>,
  executor: SqlExecutor,
): Promise<StoreWriteResult[]> {
  const started = keyed<string | ExecutionRow>(row.starts)
  // Journal starts the upsert left alone (a terminal record): read once committed.
  const terminal: number[] = []
  const results: StoreWriteResult[] = writes.map((write, index) => {
    switch (write.type) {
      case 'session.append':
        return appended(write, Number(row[`c${index}`]), at)
      case 'run.update':
        return toRun(row[`c${index}`] as RunRow)
      case 'execution.start': {
        const own = started.get(write.execution.key)
        if (typeof own === 'string') return { record: createdRecord(write.execution, at), created: true }
        if (own !== undefined) return { record: toExecution(own), created: own.created === true }
        terminal.push(index)
        return undefined
      }
      case 'execution.finish':
        return finishedRecord(row[`c${index}`] as StartedColumns, write, at)
      default:
        return undefined
    }
  })
  if (terminal.length > 0) {
    const starts = terminal.map((index) => (writes[index] as Write<'execution.start'>).execution)
    const current = await readExecutions(
      executor,
      schema,
      starts.map((execution) => execution.key),
    )
    for (const [position, index] of terminal.entries()) {
      const record = current.get(starts[position]!.key)
      // Deleted meanwhile: start it again, as `start` does.
      results[index] = record ? { record: toExecution(record), created: false } : (await startExecutions(executor, schema, [starts[position]!]))[0]!
    }
  }
  return results
}

/** A json_agg column's rows (or created rows' keys) by unescaped journal key. */
function keyed<R extends string | { key: string }>(column: unknown): Map<string, R> {
  const map = new Map<string, R>()
  for (const item of (column as R[] | null) ?? []) map.set(fromText(typeof item === 'string' ? item : item.key), item)
  return map
}

/** The entries as appended: the caller's own message or compaction objects (the store keeps none). */
function appended(write: Write<'session.append'>, lastSeq: number, createdAt: number): SessionEntry[] {
  const { sessionId, entries } = write
  const first = lastSeq - entries.length + 1
  return entries.map((entry, offset) => {
    const base = { sessionId, seq: first + offset, createdAt, ...(entry.runId != null && { runId: entry.runId }) }
    return entry.kind === 'message' ? { kind: 'message', message: entry.message, ...base } : { kind: 'compaction', compaction: entry.compaction, ...base }
  })
}

function createdRecord(execution: NewExecution, startedAt: number): ExecutionRecord {
  const { key, runId, step, callId, toolName } = execution
  return { key, runId, step, callId, toolName, args: execution.args ?? null, status: 'started', attempt: 1, startedAt }
}

function finishedRecord(row: StartedColumns, { outcome }: Write<'execution.finish'>, finishedAt: number): ExecutionRecord {
  const { key, runId, step, callId, toolName, args, attempt, startedAt } = startedFields(row)
  return {
    key,
    runId,
    step,
    callId,
    toolName,
    args,
    status: outcome.status,
    ...(outcome.result !== undefined && { result: outcome.result }),
    ...(outcome.error != null && { error: outcome.error }),
    attempt,
    startedAt,
    finishedAt,
  }
}

const names = new Map<string, string | undefined>()

/**
 * The name a statement text is prepared under (the same text always gets the same name, across copies of this
 * module): a process sees a few batch shapes, each parsed and planned once per connection. Past 200 texts (an
 * application with unusual batches), new ones run unnamed.
 */
export function statementName(text: string): string | undefined {
  let name = names.get(text)
  if (name === undefined && !names.has(text)) {
    name = names.size < 200 ? `spindle_batch_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}` : undefined
    names.set(text, name)
  }
  return name
}

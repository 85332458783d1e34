// The samples the StoreBatch checks share: a seeded session and run, a step's writes of every kind, and the state a
// batch can touch (read back with clock readings masked).
import type { AgentEvent, BatchedStores, NewExecution, RunSnapshot, SessionEntryInput, StoreBatch, StoreWrite } from '@spindle/core'
import { expect } from 'vitest'
import { rule } from './rule.js'
import { userEntry } from './samples.js'

/** A tool call of run "r" at `step` (its journal key `r:<step>:<callId>`). */
export function call(step: number, callId: string): NewExecution {
  return { key: `r:${step}:${callId}`, runId: 'r', step, callId, toolName: 'search', args: { q: callId, list: [step] } }
}

/** A `text.delta` event of run "r" at `seq`. */
export function event(seq: number, delta = `delta ${seq}`): AgentEvent {
  return { type: 'text.delta', runId: 'r', sessionId: 's', seq, timestamp: 1_700_000_000_000 + seq, step: 1, delta }
}

/** A snapshot of run "r" at `version`. */
export function snapshot(version: number, state: RunSnapshot['state'] = { step: version }): RunSnapshot {
  return { runId: 'r', sessionId: 's', version, state, createdAt: 1_700_000_000_000 + version }
}

/** An assistant message of run "r": `text` and one `search` tool call. */
export function assistantEntry(text: string, callId: string): SessionEntryInput {
  const content = [
    { type: 'text' as const, text },
    { type: 'tool-call' as const, toolCallId: callId, toolName: 'search', args: { q: callId } },
  ]
  return { kind: 'message', message: { role: 'assistant', content }, runId: 'r' }
}

/** The tool result of call `callId` of run "r". */
export function toolEntry(callId: string): SessionEntryInput {
  return {
    kind: 'message',
    message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: callId, toolName: 'search', result: { rows: [1] } }] },
    runId: 'r',
  }
}

/** The batch the stores expose, or a rule failure saying where it must be. */
export async function batchOf(stores: BatchedStores): Promise<StoreBatch> {
  return rule('batch.present', 'expose the backend’s StoreBatch as `batch` on its sessions, runs, executions and snapshots stores', () => {
    const batch = stores.sessions.batch
    expect(batch, 'sessions.batch').toBeDefined()
    return batch!
  })
}

/** A session "s" (fence 10, one entry), a run "r" with event 1, journal keys r:1:done (succeeded) and r:1:open (started), snapshot 1. */
export async function seed(stores: BatchedStores): Promise<void> {
  await stores.sessions.createSession({ id: 's' })
  await stores.sessions.append('s', [userEntry('first', 'r')], { fence: 10 })
  await stores.runs.createRun({ id: 'r', sessionId: 's', request: { input: 'first' } })
  await stores.runs.appendEvents('r', [event(1)])
  await stores.executions.start(call(1, 'done'))
  await stores.executions.finish('r:1:done', { status: 'succeeded', result: { ok: true } })
  await stores.executions.start(call(1, 'open'))
  await stores.snapshots.save(snapshot(1))
}

/** Every kind of write, each rule of its single method exercised (fresh objects on every call). */
export function stepWrites(): StoreWrite[] {
  return [
    // expectedLastSeq present but undefined means no condition (the kernel builds every append with the field).
    { type: 'session.append', sessionId: 's', entries: [assistantEntry('calling', 'c1'), userEntry('aside', 'r')], fence: 10, expectedLastSeq: undefined },
    // expectedLastSeq is checked after the earlier writes of the batch: 1 seeded + 2 just appended.
    { type: 'session.append', sessionId: 's', entries: [toolEntry('c1')], fence: 11, expectedLastSeq: 3 },
    { type: 'execution.start', execution: call(2, 'new') },
    { type: 'execution.start', execution: call(1, 'open') },
    { type: 'execution.start', execution: call(1, 'done') },
    { type: 'execution.finish', key: 'r:2:new', outcome: { status: 'succeeded', result: { rows: [1, 2] } } },
    { type: 'execution.finish', key: 'r:1:done', outcome: { status: 'failed', error: { code: 'late', message: 'late' } } },
    { type: 'run.events', runId: 'r', events: [event(1, 'replayed'), event(2), event(3)] },
    { type: 'run.events', runId: 'r', events: [event(3, 'duplicate'), event(4)] },
    { type: 'snapshot.save', snapshot: snapshot(2) },
    { type: 'snapshot.save', snapshot: snapshot(1, { replaced: true }) },
    { type: 'run.update', runId: 'r', patch: { status: 'running', step: 2, lease: { owner: 'w', expiresAt: 1_800_000_000_000 } } },
    { type: 'run.update', runId: 'r', patch: { lease: undefined, usage: { inputTokens: 3, outputTokens: 4 } } },
  ]
}

/** Everything a batch on the seeded stores can touch. */
export async function readState(stores: BatchedStores) {
  return {
    session: await stores.sessions.getSession('s'),
    missingSession: await stores.sessions.getSession('missing'),
    entries: await stores.sessions.listEntries('s'),
    journal: await stores.executions.listByRun('r'),
    events: await stores.runs.listEvents('r'),
    snapshots: await stores.snapshots.list('r'),
    run: await stores.runs.getRun('r'),
    missingRun: await stores.runs.getRun('missing'),
  }
}

const timeKeys = new Set(['createdAt', 'updatedAt', 'startedAt', 'finishedAt'])

/** The value with every clock reading replaced by a marker (two stores never write at the same millisecond). */
export function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, timeKeys.has(key) && typeof item === 'number' ? '<time>' : withoutTimes(item)]))
}

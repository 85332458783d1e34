// The scale-out soak's workload, shared by the parent (to enqueue and check) and the workers (to run it): a seeded
// plan per task, one agent per task whose scripted model finds its turn from its own markers in the session log
// (runs of a session may interleave after a crash), tools with a side-effect ledger, and activity intervals.
import { defineTool, jsonSchema, type AgentSpec, type LanguageModel, mockModel, type ModelMessage, type ModelRequest } from '@spindle/core'
import type pg from 'pg'
import { poolDatabase } from '../sql-database.js'

/** mulberry32: a small seeded PRNG, so a failing seed reproduces exactly. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export type SoakToolName = 'charge' | 'send_email' | 'lookup'
export const nonIdempotentTools: readonly SoakToolName[] = ['charge', 'send_email']

export interface SoakCall {
  id: string
  name: SoakToolName
  args: { amount: number } | { to: string } | { query: string }
}

export interface SoakTurn {
  text: string
  calls: SoakCall[]
  delayMs: number
}

export interface SoakTask {
  index: number
  sessionId: string
  idempotencyKey: string
  input: string
  /** Tool-call turns, then the final answer (a turn without calls). */
  turns: SoakTurn[]
}

/** Task `index` of a plan with `sessions` sessions: sessions are dealt round-robin, so consecutive jobs hit different sessions. */
export function soakTask(seed: number, index: number, sessions: number): SoakTask {
  const random = createRandom((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const toolTurns = 1 + Math.floor(random() * 2)
  const turns: SoakTurn[] = []
  for (let step = 0; step < toolTurns; step++) {
    const calls: SoakCall[] = []
    const callCount = 1 + Math.floor(random() * 2)
    for (let call = 0; call < callCount; call++) {
      const name = pick<SoakToolName>(['charge', 'send_email', 'lookup'])
      const args =
        name === 'charge'
          ? { amount: 1 + Math.floor(random() * 100) }
          : name === 'send_email'
            ? { to: `user${index}@example.com` }
            : { query: `order ${index}` }
      calls.push({ id: `t${index}s${step}c${call}`, name, args })
    }
    turns.push({ text: `[#${index}:${step}] working`, calls, delayMs: 10 + Math.floor(random() * 30) })
  }
  turns.push({ text: `[#${index}:final] task ${index} done`, calls: [], delayMs: 10 + Math.floor(random() * 30) })
  return { index, sessionId: `soak-session-${index % sessions}`, idempotencyKey: `task-${index}`, input: `Please handle task #${index}.`, turns }
}

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content
  return message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('')
}

/** The turn a task's model is at: how many of its own answers the context holds. */
function turnOf(index: number, request: ModelRequest): number {
  const marker = `[#${index}:`
  return request.messages.filter((message) => message.role === 'assistant' && textOf(message).startsWith(marker)).length
}

export interface ActivityRecorder {
  /** Records the start of an activity and returns a function that records its end. */
  start(task: SoakTask, kind: string): Promise<() => Promise<void>>
}

/** Wraps a model so each call is an activity interval (used to prove that runs of a session never overlap). */
function recordedModel(inner: LanguageModel, task: SoakTask, activity: ActivityRecorder | undefined): LanguageModel {
  if (!activity) return inner
  return {
    specificationVersion: inner.specificationVersion,
    provider: inner.provider,
    modelId: inner.modelId,
    capabilities: inner.capabilities,
    stream(request, options) {
      return (async function* () {
        const end = await activity.start(task, 'model')
        try {
          yield* inner.stream(request, options)
        } finally {
          await end()
        }
      })()
    },
  }
}

export interface SoakLedger {
  /** The side effect: one row with the idempotency key. */
  record(task: SoakTask, tool: SoakToolName, key: string): Promise<void>
  has(key: string): Promise<boolean>
}

/** The agent of one task: named `soak-<index>`, so a worker finds it by name in `runtime.work({ agents })`. */
export function soakAgent(task: SoakTask, ledger?: SoakLedger, activity?: ActivityRecorder): AgentSpec {
  const model = mockModel(
    (request) => {
      const turn = task.turns[turnOf(task.index, request)]
      if (!turn) return { error: new Error(`soak model: task #${task.index} asked for a turn past its last`) }
      return { text: turn.text, toolCalls: turn.calls.map((call) => ({ id: call.id, name: call.name, args: call.args })), delayMs: turn.delayMs, chunkSize: 6 }
    },
    { modelId: 'soak' },
  )
  const effect = async (tool: SoakToolName, key: string) => {
    const end = await activity?.start(task, `tool:${tool}`)
    try {
      await ledger?.record(task, tool, key)
      // A kill often lands here: after the side effect, before the journal records the result.
      await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      await end?.()
    }
  }
  const charge = defineTool({
    name: 'charge',
    description: 'Charges the customer (not idempotent; no reconcile: an unknown outcome goes back to the model)',
    inputSchema: jsonSchema<{ amount: number }>({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] }),
    effect: 'external',
    execute: async ({ amount }, { idempotencyKey }) => {
      await effect('charge', idempotencyKey)
      return { charged: amount }
    },
  })
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'Sends an email (not idempotent; reconciled from the ledger after a crash)',
    inputSchema: jsonSchema<{ to: string }>({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }),
    effect: 'external',
    execute: async ({ to }, { idempotencyKey }) => {
      await effect('send_email', idempotencyKey)
      return { sent: to }
    },
    reconcile: async ({ args, idempotencyKey }) =>
      (await ledger?.has(idempotencyKey)) ? { action: 'result', result: { sent: args.to, reconciled: true } } : { action: 'rerun' },
  })
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks an order up (idempotent: re-run after a crash)',
    inputSchema: jsonSchema<{ query: string }>({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }),
    idempotent: true,
    effect: 'read',
    execute: async ({ query }, { idempotencyKey }) => {
      await effect('lookup', idempotencyKey)
      return { query, hits: query.length }
    },
  })
  return {
    name: `soak-${task.index}`,
    instructions: 'Handle the task with your tools.',
    model: recordedModel(model, task, activity),
    tools: { charge, send_email: sendEmail, lookup },
  }
}

/** The ledger and activity tables, in the test's schema. */
export async function createSoakTables(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `CREATE TABLE IF NOT EXISTS "${schema}".soak_effects (id bigserial PRIMARY KEY, key text NOT NULL, tool text NOT NULL, task int NOT NULL, worker text NOT NULL, at bigint NOT NULL)`,
  )
  await pool.query(
    `CREATE TABLE IF NOT EXISTS "${schema}".soak_activity (id bigserial PRIMARY KEY, session_id text NOT NULL, task int NOT NULL, worker text NOT NULL, kind text NOT NULL, started_at bigint NOT NULL, ended_at bigint)`,
  )
}

/** The ledger and recorder of one worker, on its pool. */
export function soakRecorders(pool: pg.Pool, schema: string, worker: string): { ledger: SoakLedger; activity: ActivityRecorder } {
  // Retried like the stores' statements when a connection is dropped (the pg_terminate_backend soak).
  const database = poolDatabase(pool)
  return {
    ledger: {
      async record(task, tool, key) {
        await database.query(`INSERT INTO "${schema}".soak_effects (key, tool, task, worker, at) VALUES ($1, $2, $3, $4, $5)`, [
          key,
          tool,
          task.index,
          worker,
          Date.now(),
        ])
      },
      async has(key) {
        return (await database.query(`SELECT 1 FROM "${schema}".soak_effects WHERE key = $1`, [key])).rows.length > 0
      },
    },
    activity: {
      async start(task, kind) {
        const { rows } = await database.query<{ id: string }>(
          `INSERT INTO "${schema}".soak_activity (session_id, task, worker, kind, started_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
          [task.sessionId, task.index, worker, kind, Date.now()],
        )
        const id = rows[0]!.id
        return async () => {
          await database.query(`UPDATE "${schema}".soak_activity SET ended_at = $2 WHERE id = $1`, [id, Date.now()])
        }
      },
    },
  }
}

// What a soak must leave behind, checked from the database: every run terminal, per-session activity never
// overlapping across runs or workers, each non-idempotent side effect at most once, a gap-free session log with
// one user message per run and every tool call answered, and an event log per run whose only holes a run.resumed
// declares, that announces every call it answers, with one terminal event.
import { eventLogProblems, type Stores } from '@spindle/core'
import type pg from 'pg'
import { nonIdempotentTools, type SoakTask } from './soak-workload.js'

export interface SoakFindings {
  /** Human-readable violations; empty when every invariant holds. */
  violations: string[]
  statuses: Record<string, number>
  resumedRuns: number
  effects: number
  unknownOutcomes: number
  activities: number
}

interface ActivityRow {
  session_id: string
  task: number
  worker: string
  kind: string
  started_at: string
  ended_at: string | null
}

export async function checkSoakInvariants(options: {
  pool: pg.Pool
  schema: string
  stores: Stores
  tasks: SoakTask[]
  /** Run id of each task. */
  runIds: string[]
  killedAt: Record<string, number>
}): Promise<SoakFindings> {
  const { pool, schema, stores, tasks, runIds, killedAt } = options
  const violations: string[] = []
  const statuses: Record<string, number> = {}

  // 1. Every run terminal (and, with this workload, finished with a final answer).
  const { rows: runs } = await pool.query<{ id: string; status: string; finish_reason: string | null }>(
    `SELECT id, status, finish_reason FROM "${schema}".runs`,
  )
  for (const run of runs) statuses[`${run.status}/${run.finish_reason}`] = (statuses[`${run.status}/${run.finish_reason}`] ?? 0) + 1
  if (runs.length !== tasks.length) violations.push(`${runs.length} runs stored for ${tasks.length} tasks`)
  for (const run of runs) if (run.status !== 'completed' || run.finish_reason !== 'stop') violations.push(`run ${run.id} is ${run.status}/${run.finish_reason}`)

  // 2. Activity of a session never overlaps, except calls of one run in one worker life (parallel tools).
  const { rows: activity } = await pool.query<ActivityRow>(`SELECT session_id, task, worker, kind, started_at, ended_at FROM "${schema}".soak_activity`)
  const bySession = new Map<string, Array<{ task: number; worker: string; kind: string; start: number; end: number }>>()
  for (const row of activity) {
    const start = Number(row.started_at)
    let end = row.ended_at === null ? undefined : Number(row.ended_at)
    if (end === undefined) {
      const killed = killedAt[row.worker]
      if (killed === undefined) {
        violations.push(`an activity of task ${row.task} (${row.kind}) in live worker ${row.worker} never ended`)
        continue
      }
      end = Math.max(start, killed)
    }
    const list = bySession.get(row.session_id) ?? []
    list.push({ task: row.task, worker: row.worker, kind: row.kind, start, end })
    bySession.set(row.session_id, list)
  }
  for (const [sessionId, list] of bySession) {
    list.sort((a, b) => a.start - b.start)
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length && list[j]!.start < list[i]!.end; j++) {
        const [a, b] = [list[i]!, list[j]!]
        if (a.task !== b.task || a.worker !== b.worker) {
          violations.push(
            `session ${sessionId}: task ${a.task} ${a.kind} in ${a.worker} [${a.start}, ${a.end}] overlaps task ${b.task} ${b.kind} in ${b.worker} [${b.start}, ${b.end}]`,
          )
        }
      }
    }
  }

  // 3. A non-idempotent side effect happens at most once per idempotency key.
  const { rows: effects } = await pool.query<{ key: string; tool: string; count: string }>(
    `SELECT key, tool, count(*) AS count FROM "${schema}".soak_effects GROUP BY key, tool`,
  )
  for (const effect of effects) {
    if (nonIdempotentTools.includes(effect.tool as never) && Number(effect.count) > 1)
      violations.push(`${effect.tool} ran ${effect.count} times for ${effect.key}`)
  }

  // 4. No message lost: gap-free session logs, one user message per run, every tool call answered once, one final answer per task.
  let unknownOutcomes = 0
  const taskOfRun = new Map(runIds.map((runId, index) => [runId, index]))
  for (const sessionId of new Set(tasks.map((task) => task.sessionId))) {
    const entries = await stores.sessions.listEntries(sessionId)
    if (entries.some((entry, i) => entry.seq !== i + 1))
      violations.push(`session ${sessionId}: the log has gaps: ${entries.map((entry) => entry.seq).join(',')}`)
    const userMessages = new Map<string, number>()
    const calls = new Map<string, number>()
    const results = new Map<string, number>()
    const finals = new Map<number, number>()
    for (const entry of entries) {
      if (entry.kind !== 'message') continue
      const { message } = entry
      if (message.role === 'user' && entry.runId) userMessages.set(entry.runId, (userMessages.get(entry.runId) ?? 0) + 1)
      if (message.role === 'assistant') {
        for (const part of message.content) {
          if (part.type === 'tool-call') calls.set(part.toolCallId, (calls.get(part.toolCallId) ?? 0) + 1)
          if (part.type === 'text' && part.text.includes(':final]')) {
            const task = Number(/\[#(\d+):final\]/.exec(part.text)?.[1])
            finals.set(task, (finals.get(task) ?? 0) + 1)
          }
        }
      }
      if (message.role === 'tool') {
        for (const part of message.content) {
          results.set(part.toolCallId, (results.get(part.toolCallId) ?? 0) + 1)
          if (part.isError && /unknown/i.test(JSON.stringify(part.result))) unknownOutcomes++
        }
      }
    }
    for (const task of tasks.filter((candidate) => candidate.sessionId === sessionId)) {
      const runId = runIds[task.index]!
      if (userMessages.get(runId) !== 1) violations.push(`run ${runId} (task ${task.index}) has ${userMessages.get(runId) ?? 0} user messages`)
      if (finals.get(task.index) !== 1) violations.push(`task ${task.index} has ${finals.get(task.index) ?? 0} final answers`)
    }
    for (const [callId, count] of calls) {
      if (count !== 1) violations.push(`session ${sessionId}: tool call ${callId} proposed ${count} times`)
      if (results.get(callId) !== 1) violations.push(`session ${sessionId}: tool call ${callId} answered ${results.get(callId) ?? 0} times`)
    }
    for (const callId of results.keys()) if (!calls.has(callId)) violations.push(`session ${sessionId}: a result for unknown call ${callId}`)
    // What a provider would accept: a step's tool calls answered by the very next message, and one run's messages
    // never interleaved with another's (a run starting while an earlier one was unfinished did both).
    const messages = entries.filter((entry) => entry.kind === 'message')
    const finished = new Set<string>()
    for (let i = 0; i < messages.length; i++) {
      const entry = messages[i]!
      if (entry.kind !== 'message') continue
      const previous = messages[i - 1]
      if (previous?.runId && previous.runId !== entry.runId) finished.add(previous.runId)
      if (entry.runId && finished.has(entry.runId))
        violations.push(`session ${sessionId}: run ${entry.runId} continues at seq ${entry.seq} after another run's messages`)
      if (entry.message.role !== 'assistant') continue
      const asked = entry.message.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId)
      if (!asked.length) continue
      const next = messages[i + 1]
      const answered = next?.kind === 'message' && next.message.role === 'tool' ? next.message.content.map((part) => part.toolCallId) : []
      if (asked.some((callId) => !answered.includes(callId)))
        violations.push(`session ${sessionId}: the tool calls at seq ${entry.seq} are not answered by the next message`)
    }
  }
  for (const runId of taskOfRun.keys()) if (!runs.some((run) => run.id === runId)) violations.push(`run ${runId} was never stored`)

  // 5. Each run's event log: numbers only grow, every hole declared discarded, every answered call announced, started
  // first, exactly one terminal event, last.
  let resumedRuns = 0
  for (const runId of runIds) {
    const events = await stores.runs.listEvents(runId)
    for (const problem of eventLogProblems(events)) violations.push(`run ${runId}: ${problem}`)
    if (events[0]?.type !== 'run.started') violations.push(`run ${runId}: first event is ${events[0]?.type}`)
    const terminals = events.filter((event) => event.type === 'run.finished' || event.type === 'run.failed')
    if (terminals.length !== 1 || events.at(-1) !== terminals[0]) violations.push(`run ${runId}: ${terminals.length} terminal events`)
    if (events.some((event) => event.type === 'run.resumed')) resumedRuns++
  }

  return {
    violations,
    statuses,
    resumedRuns,
    effects: effects.reduce((sum, effect) => sum + Number(effect.count), 0),
    unknownOutcomes,
    activities: activity.length,
  }
}

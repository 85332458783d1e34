// Suite — cold-session: the first run (2 model calls, 1 tool call) on a stored session of 10 / 1,000 / 10,000
// messages, in a fresh runtime (SQLite: a new connection on the existing file), against a bare loop that reloads
// the whole thread each run (SQLite: one SELECT + JSON.parse per row; memory: a copy of the array) and LangGraph.js
// with its SQLite checkpointer.
import { AgentRuntime, Extensions, memoryStores, mockModel, type ModelMessage, type SessionEntryInput, type Stores } from '@spindle/core'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { sqliteStores } from '@spindle/store-sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BenchConfig, cell, check, formatNumber, measure, type Report, type Variant } from '../harness.js'
import { langgraphDurable } from '../peers/langgraph.js'
import { addTool, assertOutput, bareLoop, policyFor, scriptTurn, toolCounter } from '../workload.js'

type Database = ReturnType<typeof sqliteStores>['database']
/** better-sqlite3 is @spindle/store-sqlite's dependency: loaded through it, as a user of that package would have it. */
const Connection = createRequire(createRequire(import.meta.url).resolve('@spindle/store-sqlite'))('better-sqlite3') as new (path: string) => Database

const steps = 1
let sessionCounter = 0

/** A user / assistant message of the seeded history (the same text the durable suite seeds). */
function historyMessage(index: number): ModelMessage {
  return index % 2 ? { role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] } : { role: 'user', content: `question ${index}` }
}

/** A new session of `count` messages, appended through the public store API in batches of 500. */
async function seededSession(stores: Pick<Stores, 'sessions'>, count: number): Promise<string> {
  const id = `cold_${process.pid}_${++sessionCounter}`
  await stores.sessions.createSession({ id, metadata: {} })
  for (let start = 0; start < count; start += 500) {
    const batch: SessionEntryInput[] = []
    for (let index = start; index < Math.min(count, start + 500); index++) batch.push({ kind: 'message', message: historyMessage(index) })
    await stores.sessions.append(id, batch)
  }
  return id
}

/** The first run on the session, asserted: its first model call saw the whole history plus the new input. */
async function coldRun(runtime: AgentRuntime, sessionId: string, history: number): Promise<void> {
  let firstRequest = -1
  const model = mockModel(
    (request, index) => {
      if (index === 0) firstRequest = request.messages.length
      return scriptTurn(steps, index)
    },
    { recordCalls: false },
  )
  const before = toolCounter.executions
  const output = await runtime.run({ agent: { name: 'bench', model, tools: { add: addTool } }, input: 'go', sessionId })
  assertOutput(output, steps, model.turnIndex, toolCounter.executions - before, 'spindle cold run')
  check(firstRequest === history + 1, `spindle cold run: the first model call had ${firstRequest} messages, expected ${history + 1}`)
}

/** The bare reload on SQLite: every row of the session read and parsed, the loop, the new messages inserted. */
async function bareSqliteRun(database: Database, sessionId: string, history: number): Promise<void> {
  const bodies = database.prepare('SELECT body FROM session_entries WHERE session_id = ? ORDER BY seq').pluck().all(sessionId) as string[]
  const messages: ModelMessage[] = []
  for (const body of bodies) messages.push(JSON.parse(body) as ModelMessage)
  check(messages.length === history, `bare SQLite reload read ${messages.length} messages, expected ${history}`)
  const added = await bareLoop(steps, messages)
  const insert = database.prepare("INSERT INTO session_entries (session_id, seq, kind, run_id, body, created_at) VALUES (?, ?, 'message', NULL, ?, ?)")
  const now = Date.now()
  database.transaction(() => {
    for (let index = 0; index < added.length; index++) insert.run(sessionId, history + index + 1, JSON.stringify(added[index]), now)
  })()
}

export async function coldSessionSuite(config: BenchConfig, report: Report): Promise<void> {
  const histories = [10, 1_000, 10_000]
  const roundsAt = (history: number) => (config.quick ? 3 : history >= 10_000 ? 9 : 15)
  // LangGraph re-reads and re-writes its whole checkpoint per step: about 1 s a run at 10,000 messages (2026-12), so
  // the quick run measures it at 10 messages only.
  const langgraphAt = (history: number) => !config.quick || history <= 10
  const directory = mkdtempSync(join(tmpdir(), 'spindle-bench-cold-'))
  const path = join(directory, 'spindle.db')
  // The seeding connection: sessions are written through the public store API, never through the run's connection.
  const seeder = sqliteStores({ path })
  const memory = memoryStores()
  const memoryThreads = new Map<string, ModelMessage[]>()
  const checkpointer = SqliteSaver.fromConnString(join(directory, 'langgraph.db'))
  const lines: Array<Array<string | number>> = []
  try {
    const variantsAt = (history: number): Variant[] => {
      const state = {
        sqlite: undefined as { runtime: AgentRuntime; extensions: Extensions; sessionId: string } | undefined,
        memory: undefined as { runtime: AgentRuntime; sessionId: string } | undefined,
        bareSqlite: undefined as { database: Database; sessionId: string } | undefined,
        bareMemory: undefined as { sessionId: string } | undefined,
        thread: '',
      }
      const variants: Variant[] = [
        {
          name: 'spindle SQLite (cold)',
          before: async () => {
            const sessionId = await seededSession(seeder, history)
            // A new connection on the file and a new runtime: no statement, page or window cache is warm.
            const extensions = new Extensions().use(sqliteStores({ path }))
            await extensions.ready()
            state.sqlite = { runtime: new AgentRuntime(extensions, policyFor(steps)), extensions, sessionId }
          },
          run: () => coldRun(state.sqlite!.runtime, state.sqlite!.sessionId, history),
          after: async () => {
            const { extensions, sessionId } = state.sqlite!
            await extensions.dispose()
            const session = await seeder.sessions.getSession(sessionId)
            check(session?.lastSeq === history + 4, `spindle SQLite: the session holds ${session?.lastSeq} entries, expected ${history + 4}`)
            await seeder.sessions.deleteSession(sessionId)
          },
        },
        {
          name: 'bare reload, SQLite',
          before: async () => {
            const sessionId = await seededSession(seeder, history)
            const database = new Connection(path)
            database.pragma('synchronous = NORMAL')
            state.bareSqlite = { database, sessionId }
          },
          run: () => bareSqliteRun(state.bareSqlite!.database, state.bareSqlite!.sessionId, history),
          after: async () => {
            const { database, sessionId } = state.bareSqlite!
            database.close()
            const session = await seeder.sessions.getSession(sessionId)
            check(session?.lastSeq === history + 4, `bare reload: the session holds ${session?.lastSeq} entries, expected ${history + 4}`)
            await seeder.sessions.deleteSession(sessionId)
          },
        },
        {
          name: 'spindle in-memory (cold)',
          before: async () => {
            const sessionId = await seededSession(memory, history)
            state.memory = { runtime: new AgentRuntime(new Extensions().setStores(memory), policyFor(steps)), sessionId }
          },
          run: () => coldRun(state.memory!.runtime, state.memory!.sessionId, history),
          after: () => memory.sessions.deleteSession(state.memory!.sessionId),
        },
        {
          name: 'bare reload, in-memory',
          before: () => {
            const sessionId = `bare_${++sessionCounter}`
            const thread: ModelMessage[] = []
            for (let index = 0; index < history; index++) thread.push(historyMessage(index))
            memoryThreads.set(sessionId, thread)
            state.bareMemory = { sessionId }
          },
          run: async () => {
            const thread = memoryThreads.get(state.bareMemory!.sessionId)!
            const added = await bareLoop(steps, thread.slice())
            for (const message of added) thread.push(message)
          },
          after: () => {
            const { sessionId } = state.bareMemory!
            check(memoryThreads.get(sessionId)!.length === history + 4, 'bare in-memory reload: 4 messages appended')
            memoryThreads.delete(sessionId)
          },
        },
      ]
      if (langgraphAt(history))
        variants.push({
          name: 'langgraph SqliteSaver',
          before: async () => {
            state.thread = `thread_${++sessionCounter}`
            await langgraphDurable(checkpointer, state.thread, steps, history)
          },
          run: () => langgraphDurable(checkpointer, state.thread, steps),
        })
      return variants
    }
    // JIT warm-up, every variant alike, on the smallest sessions: the figures are a cold session's, not cold code's.
    await measure(variantsAt(10), { rounds: 0, warmup: config.quick ? 10 : 60, unitsPerRun: 1 })
    for (const history of histories) {
      const variants = variantsAt(history)
      const samples = await measure(variants, { rounds: roundsAt(history), warmup: history >= 10_000 ? 1 : 2, unitsPerRun: 1 })
      const medians = new Map<string, number>()
      const rows = variants.map((variant) => {
        const { wall, cpu } = samples.get(variant.name)!
        const base = { suite: 'cold-session', case: 'first run on a stored session (2 model calls, 1 tool call)', variant: variant.name, n: history }
        const wallRow = report.add(
          { ...base, metric: 'wall per run', unit: 'ms' },
          wall.map((value) => value / 1_000),
        )
        const cpuRow = report.add(
          { ...base, metric: 'cpu per run', unit: 'ms' },
          cpu.map((value) => value / 1_000),
        )
        medians.set(variant.name, wallRow.median)
        return { name: variant.name, wallRow, cpuRow }
      })
      for (const [spindle, bare] of [
        ['spindle SQLite (cold)', 'bare reload, SQLite'],
        ['spindle in-memory (cold)', 'bare reload, in-memory'],
      ] as const) {
        report.add(
          { suite: 'cold-session', case: 'cold run / bare reload', variant: spindle, n: history, metric: 'ratio to bare reload', unit: '×' },
          medians.get(spindle)! / medians.get(bare)!,
        )
      }
      const bareOf = (name: string) => medians.get(name.includes('in-memory') ? 'bare reload, in-memory' : 'bare reload, SQLite')!
      for (const { name, wallRow, cpuRow } of rows) {
        const ratio = name.startsWith('bare') ? '1' : formatNumber(wallRow.median / bareOf(name))
        lines.push([name, history, cell(wallRow), cell(cpuRow), `${ratio} ×`])
      }
    }
  } finally {
    seeder.close()
    ;(checkpointer as unknown as { db: { close(): void } }).db.close()
    rmSync(directory, { recursive: true, force: true })
  }
  report.table(
    'Cold session: the first run (2 model calls, 1 tool call) on a stored session, by history (messages) — ms per run, median (min–max)',
    ['variant', 'history', 'wall ms/run', 'CPU ms/run', 'wall / bare reload'],
    lines,
    [
      'Each sample seeds a new session through the public store API (alternating user / assistant messages, in appends of 500), then times one run on it in a fresh `AgentRuntime` — for SQLite on a new connection to the existing WAL file (no statement, page or window cache warm); in memory on the pre-filled memory stores. The bare reload is the bare loop of the kernel suite run on the reloaded thread: SQLite = a new better-sqlite3 connection (synchronous = NORMAL, as the store sets), one `SELECT body … ORDER BY seq` of the session’s rows and `JSON.parse` of each, the same 2 model calls and 1 tool, the 4 new messages inserted in one transaction; in memory = a copy of the stored array.',
      'The ratio is to the bare reload on the same store in the same run (variants interleaved). LangGraph: `createReactAgent` with `SqliteSaver`, the thread pre-filled with `updateState` (in `--quick`, at 10 messages only). Every run is asserted (answer, model calls, tool executions, the first request’s message count, the session’s entries after the run).',
    ].join(' '),
  )
}

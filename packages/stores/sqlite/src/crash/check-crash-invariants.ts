// The crash test's verdict: reads the SQLite file and the side-effect ledger after the last child finished,
// and lists every broken invariant (an empty list is a pass), with figures on what recovery had to do.
import { eventLogProblems, liveViewProblems, type AssistantMessage, type SessionEntry, type ToolMessage } from '@spindle/core'
import { readLiveConnections } from './live-sightings.js'
import { sqliteStores } from '../index.js'
import { crashTask, nonIdempotentTools, readLedger, type CrashToolName } from './crash-workload.js'

export interface CrashFigures {
  resumedRuns: number
  /** Non-idempotent calls whose outcome was unknown after a crash (the model was told so). */
  outcomeUnknown: number
  /** Calls answered by `reconcile()` from the ledger instead of running again. */
  reconciled: number
  /** Idempotent calls that ran more than once (re-run after a crash), each journaled once. */
  idempotentReruns: number
  toolCalls: number
  sideEffects: number
  /** Events live subscribers saw, and how many of them a later run.resumed declared discarded. */
  liveSeen: number
  discardedSeen: number
}

export async function checkCrashInvariants(options: {
  databasePath: string
  ledgerPath: string
  /** What the children's live subscribers saw (`CrashCampaignOptions.livePath`). */
  livePath: string
  seed: number
  runs: number
}): Promise<{ violations: string[]; figures: CrashFigures }> {
  const violations: string[] = []
  const figures: CrashFigures = {
    resumedRuns: 0,
    outcomeUnknown: 0,
    reconciled: 0,
    idempotentReruns: 0,
    toolCalls: 0,
    sideEffects: 0,
    discardedSeen: 0,
    liveSeen: 0,
  }
  const live = readLiveConnections(options.livePath)
  const fail = (message: string) => violations.push(message)
  const ledger = readLedger(options.ledgerPath)
  figures.sideEffects = ledger.length
  const ledgerCount = new Map<string, number>()
  for (const line of ledger) ledgerCount.set(line.key, (ledgerCount.get(line.key) ?? 0) + 1)
  const journaledKeys = new Set<string>()
  const stores = sqliteStores({ path: options.databasePath, readonly: true })
  try {
    const sessionsChecked = new Set<string>()
    for (let index = 0; index < options.runs; index++) {
      const task = crashTask(options.seed, index)
      const where = `task #${index}`
      if (!sessionsChecked.has(task.sessionId)) {
        sessionsChecked.add(task.sessionId)
        const entries = await stores.sessions.listEntries(task.sessionId)
        entries.forEach((entry, position) => {
          if (entry.seq !== position + 1) fail(`${task.sessionId}: entry ${position} has seq ${entry.seq} (gap or duplicate)`)
        })
      }
      const run = await stores.runs.findRunByIdempotencyKey(task.sessionId, task.idempotencyKey)
      if (!run) {
        fail(`${where}: no run`)
        continue
      }
      const runs = await stores.runs.listRuns({ sessionId: task.sessionId })
      if (runs.filter((candidate) => candidate.idempotencyKey === task.idempotencyKey).length !== 1) fail(`${where}: more than one run`)
      if (run.status !== 'completed' || run.finishReason !== 'stop')
        fail(`${where}: run ${run.id} is ${run.status} (${run.finishReason ?? 'no finish reason'}${run.error ? `: ${run.error.message}` : ''})`)

      // The session log: one user message, each planned turn exactly once, each call answered exactly once.
      const entries = (await stores.sessions.listEntries(task.sessionId)).filter(
        (entry): entry is SessionEntry & { kind: 'message' } => entry.kind === 'message' && entry.runId === run.id,
      )
      const users = entries.filter((entry) => entry.message.role === 'user')
      if (users.length !== 1 || users[0]!.message.content !== task.input) fail(`${where}: ${users.length} user messages`)
      const assistants = entries.filter((entry) => entry.message.role === 'assistant').map((entry) => entry.message as AssistantMessage)
      const expected = task.turns.map((turn) => JSON.stringify({ text: turn.text, calls: turn.calls.map((call) => call.id) }))
      const actual = assistants.map((message) =>
        JSON.stringify({
          text: message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
          calls: message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])),
        }),
      )
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        fail(`${where}: assistant messages ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
      const results = new Map<string, { result: unknown; isError: boolean }[]>()
      for (const entry of entries) {
        if (entry.message.role !== 'tool') continue
        for (const part of (entry.message as ToolMessage).content) {
          const list = results.get(part.toolCallId) ?? []
          list.push({ result: part.result, isError: part.isError ?? false })
          results.set(part.toolCallId, list)
        }
      }
      const journal = await stores.executions.listByRun(run.id)
      const journalKeys = journal.map((record) => record.key)
      if (new Set(journalKeys).size !== journalKeys.length) fail(`${where}: a journal key is recorded twice`)
      for (const record of journal) journaledKeys.add(record.key)
      const planned = task.turns.flatMap((turn) => turn.calls)
      for (const call of planned) {
        figures.toolCalls++
        const answers = results.get(call.id) ?? []
        if (answers.length !== 1) {
          fail(`${where}: call ${call.id} has ${answers.length} results`)
          continue
        }
        const answer = answers[0]!
        const records = journal.filter((record) => record.callId === call.id)
        if (records.length !== 1) {
          fail(`${where}: call ${call.id} has ${records.length} journal records`)
          continue
        }
        const record = records[0]!
        const effects = ledgerCount.get(record.key) ?? 0
        const nonIdempotent = nonIdempotentTools.includes(call.name as CrashToolName)
        if (nonIdempotent && effects > 1) fail(`${where}: non-idempotent ${call.name} (${record.key}) ran ${effects} times`)
        if (!nonIdempotent) {
          if (record.status !== 'succeeded') fail(`${where}: idempotent ${call.name} (${record.key}) is journaled ${record.status}`)
          if (effects < 1) fail(`${where}: idempotent ${call.name} (${record.key}) succeeded without its side effect`)
          if (effects > 1) figures.idempotentReruns++
          if (answer.isError || JSON.stringify(answer.result) !== JSON.stringify(record.result))
            fail(`${where}: ${call.id}'s result in the session differs from its journal record`)
          continue
        }
        // The process may have died between the journal's `started` and `succeeded`: the resume then reconciled the
        // call (send_email, journaled succeeded) or reported its outcome as unknown (journaled failed); never `started`.
        const text = JSON.stringify(answer.result)
        if (record.status === 'succeeded') {
          if (effects !== 1) fail(`${where}: ${call.name} (${record.key}) is journaled succeeded with ${effects} side effects`)
          if (answer.isError) fail(`${where}: ${call.id} succeeded but the model got an error`)
          if (JSON.stringify(record.result).includes('"reconciled":true')) {
            if (call.name === 'send_email' && text.includes('"reconciled":true')) figures.reconciled++
            else fail(`${where}: ${call.id} journaled as reconciled, answered ${text}`)
          }
        } else if (record.status === 'failed' && record.error?.code === 'outcome_unknown') {
          if (answer.isError && text.includes('is unknown')) figures.outcomeUnknown++
          else fail(`${where}: ${call.id} journaled with an unknown outcome (${effects} side effects), answered ${text}`)
        } else fail(`${where}: ${call.name} (${record.key}) is journaled ${record.status}${record.error ? ` (${record.error.code})` : ''}`)
      }
      const plannedIds = new Set(planned.map((call) => call.id))
      for (const id of results.keys()) if (!plannedIds.has(id)) fail(`${where}: a result for unknown call ${id}`)

      // The run's event log: numbers only grow, every hole declared by the run.resumed after it, every answered call
      // announced, one start, one terminal event, last. What the live subscribers saw, across every kill, keeps its
      // meaning, and a catch-up after their last seq completes it to exactly the log.
      const events = await stores.runs.listEvents(run.id)
      for (const problem of eventLogProblems(events, { finished: true })) fail(`${where}: ${problem}`)
      const connections = live.get(run.id) ?? []
      for (const problem of liveViewProblems(events, connections)) fail(`${where} (live): ${problem}`)
      const logged = new Set(events.map((event) => event.seq))
      for (const seen of connections) {
        figures.liveSeen += seen.length
        figures.discardedSeen += seen.filter((event) => !logged.has(event.seq)).length
      }
      const types = events.map((event) => event.type)
      if (types.filter((type) => type === 'run.started').length !== 1)
        fail(`${where}: ${types.filter((type) => type === 'run.started').length} run.started events`)
      if (types.includes('run.resumed')) figures.resumedRuns++
    }
    for (const line of ledger) if (!journaledKeys.has(line.key)) fail(`side effect ${line.tool} ${line.key} has no journal record`)
  } finally {
    stores.close()
  }
  return { violations, figures }
}

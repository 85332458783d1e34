// Durable nested agents on SQLite: a concierge delegates the booking to the travel agent of `durable.ts`
// (`agent.asTool()`). Kill it (`kill -9`) while the travel agent works, run it again: the concierge's call
// continues the travel agent's own run where it stopped — the bookings already made are not made again.
// Delete examples/.data/ to start over.
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Agent, AgentRuntime, Extensions, mockModel, type MockTurn, type RunOutput } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'
import { readEffects, tripAgent } from './durable.js'

const sessionId = 'durable-team-demo'
const idempotencyKey = 'team-trip-to-lisbon'

/** The concierge's script: delegate, then report. Its next turn is read from the conversation, like the travel agent's. */
function conciergeModel(turnMs: number) {
  const turns: MockTurn[] = [
    {
      text: 'Handing the booking to the travel agent.',
      toolCalls: [{ id: 'delegate', name: 'travel_agent', args: { prompt: 'Book three nights in Lisbon next week.' } }],
    },
    { text: 'Your trip is booked: the travel agent confirmed three nights in Lisbon.' },
  ]
  return mockModel(
    (request) => {
      const lastUser = request.messages.findLastIndex((message) => message.role === 'user')
      const done = request.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length
      return { ...turns[Math.min(done, turns.length - 1)]!, delayMs: turnMs / 2, chunkSize: 4 }
    },
    { modelId: 'slow-demo' },
  )
}

export async function main(options: { databasePath?: string; turnMs?: number; log?: (text: string) => void } = {}): Promise<RunOutput> {
  const log = options.log ?? ((text: string) => process.stdout.write(text))
  const databasePath = options.databasePath ?? join(import.meta.dirname, '.data', 'durable-team.db')
  const effectsPath = join(dirname(databasePath), 'durable-team-effects.jsonl')
  const turnMs = options.turnMs ?? 2_000
  mkdirSync(dirname(databasePath), { recursive: true })
  const extensions = new Extensions()
  await extensions.use(sqliteStores({ path: databasePath }))
  // A stable owner id: the restarted program takes its runs back at once (see durable.ts).
  const runtime = new AgentRuntime(extensions, { maxSteps: 8 }, { ownerId: 'durable-team-demo' })
  const travelSpec = tripAgent(effectsPath, turnMs)
  const travel = new Agent({ ...travelSpec, description: 'Plans and books trips' })
  const concierge = new Agent({
    name: 'concierge',
    instructions: 'Delegate bookings to the travel agent.',
    model: conciergeModel(turnMs),
    tools: { travel_agent: travel.asTool() },
  })
  const names = new Map<string, string>()
  const stopPrinting = new AbortController()
  const printing = (async () => {
    for await (const event of runtime.subscribe({ signal: stopPrinting.signal })) {
      if (event.type === 'run.started' || (event.type === 'run.resumed' && event.agent)) names.set(event.runId, event.agent!)
      const who = `[${names.get(event.runId) ?? event.runId}]`
      if (event.type === 'run.started') log(`\n▶ ${who} run ${event.runId} started\n`)
      if (event.type === 'run.resumed') log(`\n↻ ${who} run ${event.runId} resumed from step ${event.fromStep}\n`)
      if (event.type === 'step.started') log(`\n${who} step ${event.step}: `)
      if (event.type === 'text.delta') log(event.delta)
      if (event.type === 'tool.started') log(`\n  ${who} → ${event.toolName}`)
      if (event.type === 'tool.result') log(`\n  ${who} ← ${event.toolName} ${JSON.stringify(event.result)}`)
      if (event.type === 'tool.error') log(`\n  ${who} ✗ ${event.toolName} ${event.error.message}`)
      if (event.type === 'run.finished') log(`\n■ ${who} finished: ${event.finishReason} after ${event.steps} steps\n`)
    }
  })()
  try {
    log(`durable team demo on ${databasePath} — kill it any time and run it again\n`)
    // Both runs a killed process left (the concierge's and the travel agent's) are continued.
    const { resumed, failed } = await (await runtime.recover({ agents: [concierge, travel] })).done
    for (const { runId, error } of failed) log(`run ${runId} could not be resumed: ${error instanceof Error ? error.message : String(error)}\n`)
    let output = resumed.find((candidate) => candidate.sessionId === sessionId)
    output ??= await runtime.run({ agent: concierge, sessionId, idempotencyKey, input: 'Please book my trip to Lisbon.' })
    log(`answer: ${output.text}\n`)
    log(
      `side effects so far: ${readEffects(effectsPath)
        .map((line) => line.tool)
        .join(', ')}\n`,
    )
    return output
  } finally {
    stopPrinting.abort()
    await printing.catch(() => {})
    await extensions.dispose()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main({ databasePath: process.env.DURABLE_DB, turnMs: process.env.DURABLE_TURN_MS ? Number(process.env.DURABLE_TURN_MS) : undefined })
  process.exit(0)
}

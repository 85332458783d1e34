// A durable agent on SQLite: kill it (Ctrl-C, or `kill -9`) while it works, run it again, and it continues
// where it stopped — finished tool calls are never run again. Run it with `pnpm demo:durable`;
// delete examples/.data/ to start over. The model is scripted and slow, so there is time to kill it.
import { createHash } from 'node:crypto'
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { AgentRuntime, defineTool, Extensions, mockModel, type AgentSpec, type MockTurn, type RunOutput } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'

export interface DurableOptions {
  /** The SQLite file (default examples/.data/durable.db). */
  databasePath?: string
  /** The tools' side effects, one JSON line each (default beside the database: durable-effects.jsonl). */
  effectsPath?: string
  /** How long each model turn streams (default 2000 ms). */
  turnMs?: number
  log?: (text: string) => void
}

const sessionId = 'durable-demo'
const idempotencyKey = 'trip-to-lisbon'

/** The scripted "model": which turn comes next is read from the conversation, so a restarted process picks up the script. */
function tripModel(turnMs: number) {
  const turns: MockTurn[] = [
    { text: 'First, the weather in Lisbon next week.', toolCalls: [{ id: 'weather', name: 'check_weather', args: { city: 'Lisbon' } }] },
    { text: 'Sunny. Booking the hotel now.', toolCalls: [{ id: 'hotel', name: 'book_hotel', args: { city: 'Lisbon', nights: 3 } }] },
    {
      text: 'Booked. Sending the confirmation to the traveller.',
      toolCalls: [{ id: 'email', name: 'send_confirmation', args: { to: 'traveller@example.com' } }],
    },
    { text: 'All set: three nights in Lisbon are booked under sunny skies, and the confirmation is in your inbox.' },
  ]
  return mockModel(
    (request) => {
      const lastUser = request.messages.findLastIndex((message) => message.role === 'user')
      const done = request.messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length
      return { ...turns[Math.min(done, turns.length - 1)]!, delayMs: turnMs, chunkSize: 4 }
    },
    { modelId: 'slow-demo' },
  )
}

export function tripAgent(effectsPath: string, turnMs: number): AgentSpec {
  // Each side effect is one line carrying the call's idempotency key, so repeats would be visible.
  const effect = (tool: string, key: string, detail: object) => appendFileSync(effectsPath, `${JSON.stringify({ tool, key, ...detail })}\n`)
  const checkWeather = defineTool({
    name: 'check_weather',
    description: 'The forecast for a city',
    inputSchema: z.object({ city: z.string() }),
    idempotent: true,
    effect: 'read',
    execute: ({ city }, { idempotencyKey }) => {
      effect('check_weather', idempotencyKey, { city })
      return { city, forecast: 'sunny', highC: 24 }
    },
  })
  const bookHotel = defineTool({
    name: 'book_hotel',
    description: 'Books a hotel (not idempotent: never run twice for one call)',
    inputSchema: z.object({ city: z.string(), nights: z.number().int() }),
    effect: 'external',
    execute: ({ city, nights }, { idempotencyKey }) => {
      effect('book_hotel', idempotencyKey, { city, nights })
      return { confirmation: `HTL-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 8).toUpperCase()}`, city, nights }
    },
  })
  const sendConfirmation = defineTool({
    name: 'send_confirmation',
    description: 'Emails the booking confirmation (not idempotent)',
    inputSchema: z.object({ to: z.string() }),
    effect: 'external',
    execute: ({ to }, { idempotencyKey }) => {
      effect('send_confirmation', idempotencyKey, { to })
      return { sent: to }
    },
  })
  return {
    name: 'travel-agent',
    instructions: 'Plan and book the trip with your tools.',
    model: tripModel(turnMs),
    tools: { check_weather: checkWeather, book_hotel: bookHotel, send_confirmation: sendConfirmation },
  }
}

export function readEffects(effectsPath: string): Array<{ tool: string; key: string }> {
  try {
    return readFileSync(effectsPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  } catch {
    return []
  }
}

/** Starts the trip run, or resumes it when a previous process was killed mid-run. */
export async function main(options: DurableOptions = {}): Promise<RunOutput> {
  const log = options.log ?? ((text: string) => process.stdout.write(text))
  const databasePath = options.databasePath ?? join(import.meta.dirname, '.data', 'durable.db')
  const effectsPath = options.effectsPath ?? join(dirname(databasePath), 'durable-effects.jsonl')
  mkdirSync(dirname(databasePath), { recursive: true })
  const extensions = new Extensions()
  await extensions.use(sqliteStores({ path: databasePath }))
  // A stable owner id: this program restarted is the same worker, so it takes its runs back at once instead
  // of waiting for the dead process's lease to expire.
  const runtime = new AgentRuntime(extensions, { maxSteps: 8 }, { ownerId: 'durable-demo' })
  const agent = tripAgent(effectsPath, options.turnMs ?? 2_000)
  const stopPrinting = new AbortController()
  const printing = (async () => {
    for await (const event of runtime.subscribe({ signal: stopPrinting.signal })) {
      if (event.type === 'run.started') log(`▶ run ${event.runId} started\n`)
      if (event.type === 'run.resumed') log(`↻ run ${event.runId} resumed from step ${event.fromStep}\n`)
      if (event.type === 'step.started') log(`\nstep ${event.step}: `)
      if (event.type === 'text.delta') log(event.delta)
      if (event.type === 'tool.started') log(`\n  → ${event.toolName}`)
      if (event.type === 'tool.result') log(`\n  ← ${event.toolName} ${JSON.stringify(event.result)}${event.reused ? ' (from the journal)' : ''}`)
      if (event.type === 'run.finished') log(`\n■ finished: ${event.finishReason} after ${event.steps} steps\n`)
    }
  })()
  try {
    log(`durable demo on ${databasePath} — kill it (Ctrl-C) any time and run it again\n`)
    const { resumed, failed } = await (await runtime.recover({ agents: [agent] })).done
    for (const { runId, error } of failed) log(`run ${runId} could not be resumed: ${error instanceof Error ? error.message : String(error)}\n`)
    let output = resumed[0]
    if (!output) {
      const existing = await runtime.runs.findRunByIdempotencyKey(sessionId, idempotencyKey)
      if (existing) log(`run ${existing.id} is already ${existing.status}; delete ${dirname(databasePath)} to start over\n`)
      // The idempotency key makes this return the existing run instead of booking a second trip.
      output = await runtime.run({ agent, sessionId, idempotencyKey, input: 'Book me three nights in Lisbon next week.' })
    }
    log(`answer: ${output.text}\n`)
    const effects = readEffects(effectsPath)
    log(`side effects so far: ${effects.map((line) => line.tool).join(', ')}\n`)
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

// Where a durable step's time goes on PostgreSQL: statements and round trips per step of a warm 10-step run (every
// client of the pool instrumented), wall and CPU per step. Prints the statements of one run with --log.
//   node --conditions=@spindle/source --import tsx packages/stores/postgres/scripts/profile-step.ts [--log] [--runs 50]
import { AgentRuntime, Extensions, defineTool, jsonSchema, mockModel } from '@spindle/core'
import pg from 'pg'
import { postgresStores } from '../src/index.js'

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const argv = process.argv.slice(2)
const log = argv.includes('--log')
const runs = Number(argv[argv.indexOf('--runs') + 1] ?? 50) || 50
const steps = 10

interface WireCounts {
  statements: number
  roundTrips: number
  texts: string[]
}
const counts: WireCounts = { statements: 0, roundTrips: 0, texts: [] }

/** Counts statements (a Sync or a simple query) and round trips (a send after a reply, or on an idle connection). */
function instrument(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const state = { outstanding: 0, repliedSinceSend: true }
    const connection = (
      client as unknown as { connection: { sync(): void; query(text: string): void; parse(m: { text: string }): void; on(e: string, f: () => void): void } }
    ).connection
    const sent = (text: string) => {
      counts.statements++
      if (state.outstanding === 0 || state.repliedSinceSend) counts.roundTrips++
      state.outstanding++
      state.repliedSinceSend = false
      if (log) counts.texts.push(text.replace(/\s+/g, ' ').slice(0, 110))
    }
    let lastParse = ''
    const [sync, query, parse] = [connection.sync.bind(connection), connection.query.bind(connection), connection.parse.bind(connection)]
    connection.parse = (message) => ((lastParse = message.text), parse(message))
    connection.sync = () => (sent(lastParse || '(prepared)'), (lastParse = ''), sync())
    connection.query = (text: string) => (sent(text), query(text))
    connection.on('readyForQuery', () => {
      state.outstanding = Math.max(0, state.outstanding - 1)
      state.repliedSinceSend = true
    })
  })
}

const add = defineTool({
  name: 'add',
  description: 'Adds',
  inputSchema: jsonSchema<{ a: number; b: number }>({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
  execute: ({ a, b }) => a + b,
})
const agent = () => ({
  name: 'bench',
  model: mockModel((_request, index) => (index < steps ? { toolCalls: [{ name: 'add', args: { a: index, b: 1 }, id: `call_${index}` }] } : { text: 'done' }), {
    recordCalls: false,
  }),
  tools: { add },
})

const pool = new pg.Pool({ connectionString: databaseUrl })
instrument(pool)
const schema = `profile_${process.pid}`
const stores = postgresStores({ pool, schema })
const extensions = new Extensions().use(stores)
await extensions.ready()
try {
  const runtime = new AgentRuntime(extensions, { maxSteps: steps + 1, maxToolCalls: steps + 1 })
  const sessionId = 'profiled'
  for (let index = 0; index < 20; index++) await runtime.run({ agent: agent(), input: 'go', sessionId })
  Object.assign(counts, { statements: 0, roundTrips: 0, texts: [] })
  const run = await runtime.run({ agent: agent(), input: 'go', sessionId })
  if (run.finishReason !== 'stop') throw new Error(`run ended with ${run.finishReason}`)
  if (log) console.log(counts.texts.join('\n'))
  console.log(
    `one warm ${steps}-step run: ${counts.statements} statements, ${counts.roundTrips} round trips (${(counts.roundTrips / steps).toFixed(2)} per step)`,
  )
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let index = 0; index < runs; index++) await runtime.run({ agent: agent(), input: 'go', sessionId })
  const wall = ((performance.now() - started) * 1000) / (runs * steps)
  const used = process.cpuUsage(cpu)
  console.log(`${runs} runs: wall ${wall.toFixed(0)} µs/step, CPU ${((used.user + used.system) / (runs * steps)).toFixed(0)} µs/step`)
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await extensions.dispose()
  await pool.end()
}

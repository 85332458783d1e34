// The README's Usage example, as written there: an agent with one tool, its sessions, runs, journal and snapshots in
// a SQLite file (spindle.db in the current directory), so a crashed run resumes. Its test keeps the README honest.
//   node --conditions=@spindle/source --import tsx examples/usage.ts
import { z } from 'zod'
import { AgentRuntime, Extensions, defineTool, mockModel } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
  idempotent: true,
})

const extensions = new Extensions().use(sqliteStores({ path: 'spindle.db' })) // durable: survives a crash and a restart
const runtime = new AgentRuntime(extensions, { maxSteps: 8 })
const model = mockModel([{ toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { text: '2 + 3 = 5' }])

for await (const event of runtime.stream({ agent: { name: 'calc', model, tools: { add } }, input: 'What is 2 + 3?' })) {
  if (event.type === 'text.delta') process.stdout.write(event.delta)
  if (event.type === 'run.finished') console.log(`\n(${event.finishReason}, ${event.steps} steps)`)
}
await extensions.dispose() // closes the database

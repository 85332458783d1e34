// The Spindle service: one AgentRuntime on `sqliteStores` (a WAL file in the directory given as argv[2]) for the
// process, every request a durable 5-step run on a new session. The model is stateless (its turn is the number of
// tool results in the request), so one agent spec serves every request.
import { AgentRuntime, type AgentSpec, Extensions, mockModel, type ModelRequest } from '@spindle/core'
import { sqliteStores } from '@spindle/store-sqlite'
import { join } from 'node:path'
import { addTool, executedInOutput, finalText, policyFor, scriptTurn } from '../workload.js'
import { serveRuns, serviceSteps } from './http-service.js'

const directory = process.argv[2]
if (!directory) throw new Error('[spindle/bench] spindle-server: pass the data directory')

/** Tool results in the model's request: the turn the script is at. */
function toolResultsIn(request: ModelRequest): number {
  let results = 0
  for (const message of request.messages) if (message.role === 'tool') results += message.content.length
  return results
}

const model = mockModel((request) => scriptTurn(serviceSteps, toolResultsIn(request)), { recordCalls: false })
const agent: AgentSpec = { name: 'service', model, tools: { add: addTool } }
const runtime = new AgentRuntime(new Extensions().use(sqliteStores({ path: join(directory, 'spindle.db') })), policyFor(serviceSteps))

serveRuns(async () => {
  const output = await runtime.run({ agent, input: 'go' })
  if (output.finishReason !== 'stop') throw new Error(`run ${output.runId} finished with ${output.finishReason}: ${JSON.stringify(output.error)}`)
  return { text: output.text === finalText ? output.text : `unexpected: ${output.text}`, toolResults: executedInOutput(output) }
})

// The LangGraph.js service: the workload's `createReactAgent` graph (peers/langgraph.ts) compiled once with
// `SqliteSaver` (a file in the directory given as argv[2]), a new thread per request; the chat model is stateless
// (its turn is the number of tool messages in the conversation).
import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { join } from 'node:path'
import { langgraphAgent, toolMessagesIn } from '../peers/langgraph.js'
import { serveRuns, serviceSteps } from './http-service.js'

const directory = process.argv[2]
if (!directory) throw new Error('[spindle/bench] langgraph-server: pass the data directory')

const checkpointer = SqliteSaver.fromConnString(join(directory, 'langgraph.db'))
const { graph } = langgraphAgent(serviceSteps, checkpointer, toolMessagesIn)
let threads = 0

serveRuns(async () => {
  const config = { configurable: { thread_id: `thread_${process.pid}_${++threads}` }, recursionLimit: 2 * serviceSteps + 10 }
  const state = await graph.invoke({ messages: [new HumanMessage('go')] }, config)
  const messages: BaseMessage[] = state.messages
  let toolResults = 0
  for (const message of messages)
    if (ToolMessage.isInstance(message) && message.content === String(Number(message.tool_call_id.slice('call_'.length)) + 1)) toolResults++
  const last = messages[messages.length - 1]
  return { text: typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content), toolResults }
})

// The LangGraph.js service: one `createReactAgent` graph compiled once with `SqliteSaver` (a file in the directory
// given as argv[2]), a new thread per request; the chat model is stateless (its turn is the number of tool
// messages in the conversation).
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { tool } from '@langchain/core/tools'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { join } from 'node:path'
import { addNumbers, addSchema, scriptTurn } from '../workload.js'
import { serveRuns, serviceSteps } from './http-service.js'

const directory = process.argv[2]
if (!directory) throw new Error('[spindle/bench] langgraph-server: pass the data directory')

class StatelessScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return 'scripted'
  }
  override bindTools(): this {
    return this
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    let toolMessages = 0
    for (const message of messages) if (ToolMessage.isInstance(message)) toolMessages++
    const turn = scriptTurn(serviceSteps, toolMessages)
    const call = turn.toolCalls?.[0]
    const message = call
      ? new AIMessage({ content: '', tool_calls: [{ id: call.id!, name: call.name, args: call.args as Record<string, number>, type: 'tool_call' }] })
      : new AIMessage({ content: turn.text! })
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

const add = tool(async (input: { a: number; b: number }) => String(addNumbers(input)), { name: 'add', description: 'Adds two numbers', schema: addSchema })
const checkpointer = SqliteSaver.fromConnString(join(directory, 'langgraph.db'))
const graph = createReactAgent({ llm: new StatelessScriptedChatModel({}), tools: [add], checkpointer })
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

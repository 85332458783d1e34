// LangGraph.js on the same workload: `createReactAgent` with a minimal BaseChatModel subclass that follows the
// same script (FakeListChatModel cannot call tools), the same zod schema, `invoke` and `stream` (drained).
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { tool } from '@langchain/core/tools'
import type { BaseCheckpointSaver } from '@langchain/langgraph'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { check } from '../harness.js'
import { addNumbers, addSchema, finalText, scriptTurn, toolCounter } from '../workload.js'

/** Which turn of the script a model call is at, from the conversation it is sent and the model's earlier calls. */
export type TurnOf = (messages: BaseMessage[], calls: number) => number

/** The tool messages in a conversation: the turn a stateless model (one for every run of a process) is at. */
export function toolMessagesIn(messages: BaseMessage[]): number {
  let toolMessages = 0
  for (const message of messages) if (ToolMessage.isInstance(message)) toolMessages++
  return toolMessages
}

/**
 * A chat model that returns the scripted turn: one `add` tool call per step, then the final text. The turn is its
 * own call count by default (a model per run); `turnOf` picks it otherwise.
 */
export class ScriptedChatModel extends BaseChatModel {
  calls = 0
  constructor(
    readonly steps: number,
    private readonly turnOf: TurnOf = (_messages, calls) => calls,
  ) {
    super({})
  }
  _llmType(): string {
    return 'scripted'
  }
  override bindTools(): this {
    return this
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const turn = scriptTurn(this.steps, this.turnOf(messages, this.calls++))
    const call = turn.toolCalls?.[0]
    const message = call
      ? new AIMessage({ content: '', tool_calls: [{ id: call.id!, name: call.name, args: call.args as Record<string, number>, type: 'tool_call' }] })
      : new AIMessage({ content: turn.text! })
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}

const add = tool(async (input: { a: number; b: number }) => String(addNumbers(input)), { name: 'add', description: 'Adds two numbers', schema: addSchema })

/** The `createReactAgent` graph of the workload on a scripted model (with `checkpointer` when given) and that model. */
export function langgraphAgent(steps: number, checkpointer?: BaseCheckpointSaver, turnOf?: TurnOf) {
  const model = new ScriptedChatModel(steps, turnOf)
  return { model, graph: createReactAgent({ llm: model, tools: [add], ...(checkpointer ? { checkpointer } : {}) }) }
}

function assertDone(messages: BaseMessage[], model: ScriptedChatModel, executed: number, steps: number, label: string): void {
  const last = messages[messages.length - 1]
  check(last?.content === finalText, `${label} answered "${String(last?.content)}"`)
  check(model.calls === steps + 1, `${label} made ${model.calls} model calls, expected ${steps + 1}`)
  check(executed === steps, `${label} executed ${executed} tools, expected ${steps}`)
}

export async function langgraphInvoke(steps: number): Promise<void> {
  const { model, graph } = langgraphAgent(steps)
  const before = toolCounter.executions
  const state = await graph.invoke({ messages: [new HumanMessage('go')] }, { recursionLimit: 2 * steps + 10 })
  assertDone(state.messages, model, toolCounter.executions - before, steps, 'langgraph invoke')
}

export async function langgraphStream(steps: number): Promise<void> {
  const { model, graph } = langgraphAgent(steps)
  const before = toolCounter.executions
  let last: BaseMessage[] = []
  const stream = await graph.stream({ messages: [new HumanMessage('go')] }, { recursionLimit: 2 * steps + 10, streamMode: 'values' })
  for await (const chunk of stream) last = chunk.messages
  assertDone(last, model, toolCounter.executions - before, steps, 'langgraph stream')
}

/** A thread on a checkpointer with `history` prior messages, then a timed N-step run on it. */
export async function langgraphDurable(checkpointer: BaseCheckpointSaver, threadId: string, steps: number, prefill?: number): Promise<void> {
  const { model, graph } = langgraphAgent(steps, checkpointer)
  const config = { configurable: { thread_id: threadId }, recursionLimit: 2 * steps + 10 }
  if (prefill !== undefined) {
    const history: BaseMessage[] = []
    for (let index = 0; index < prefill; index++) history.push(index % 2 ? new AIMessage(`answer ${index}`) : new HumanMessage(`question ${index}`))
    await graph.updateState(config, { messages: history }, 'agent')
    return
  }
  const before = toolCounter.executions
  const state = await graph.invoke({ messages: [new HumanMessage('go')] }, config)
  assertDone(state.messages, model, toolCounter.executions - before, steps, 'langgraph durable')
}

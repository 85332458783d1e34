// OpenAI Agents SDK on the same workload: a custom `Model` that follows the same script, a zod `tool()`,
// `run()` and `run(..., { stream: true })` (events drained), every run asserted.
import { Agent, type Model, type ModelRequest, type ModelResponse, run, setTracingDisabled, tool, Usage, type StreamEvent } from '@openai/agents'
import { check } from '../harness.js'
import { addNumbers, addSchema, finalText, scriptTurn, toolCounter } from '../workload.js'

// The SDK traces by default and would try to export; no network here, so tracing is off (set when the peer loads).
setTracingDisabled(true)

class ScriptedModel implements Model {
  calls = 0
  constructor(readonly steps: number) {}

  #next(): ModelResponse {
    const turn = scriptTurn(this.steps, this.calls++)
    const call = turn.toolCalls?.[0]
    return {
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 1, totalTokens: 11 }),
      responseId: `resp_${this.calls}`,
      output: call
        ? [{ type: 'function_call', callId: call.id!, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text! }] }],
    }
  }

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    return this.#next()
  }

  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = this.#next()
    yield { type: 'response_started' }
    const message = response.output[0]
    if (message?.type === 'message') {
      const text = (message.content[0] as { text: string }).text
      for (let index = 0; index < text.length; index += 8) yield { type: 'output_text_delta', delta: text.slice(index, index + 8) }
    }
    yield {
      type: 'response_done',
      response: { id: response.responseId!, usage: { requests: 1, inputTokens: 10, outputTokens: 1, totalTokens: 11 }, output: response.output as never },
    }
  }
}

const add = tool({ name: 'add', description: 'Adds two numbers', parameters: addSchema, execute: async (input) => addNumbers(input) })

function agent(steps: number) {
  const model = new ScriptedModel(steps)
  return { model, agent: new Agent({ name: 'bench', instructions: 'Add numbers.', model, tools: [add] }) }
}

export async function openaiAgentsRun(steps: number): Promise<void> {
  const { model, agent: bench } = agent(steps)
  const before = toolCounter.executions
  const result = await run(bench, 'go', { maxTurns: steps + 1 })
  check(result.finalOutput === finalText, `openai-agents run answered "${String(result.finalOutput)}"`)
  check(model.calls === steps + 1, `openai-agents run made ${model.calls} model calls`)
  check(toolCounter.executions - before === steps, `openai-agents run executed ${toolCounter.executions - before} tools`)
}

export async function openaiAgentsStream(steps: number): Promise<void> {
  const { model, agent: bench } = agent(steps)
  const before = toolCounter.executions
  const result = await run(bench, 'go', { maxTurns: steps + 1, stream: true })
  for await (const _event of result) {
    // drained
  }
  await result.completed
  check(result.finalOutput === finalText, `openai-agents stream answered "${String(result.finalOutput)}"`)
  check(model.calls === steps + 1, `openai-agents stream made ${model.calls} model calls`)
  check(toolCounter.executions - before === steps, `openai-agents stream executed ${toolCounter.executions - before} tools`)
}

// The AI SDK service: `generateText` with a stateless MockLanguageModelV3 (its turn is the number of tool results
// in the prompt) and the shared zod tool, persisting nothing.
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'
import { generateText, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { addNumbers, addSchema, scriptTurn } from '../workload.js'
import { serveRuns, serviceSteps } from './http-service.js'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function toolResultsIn(options: LanguageModelV3CallOptions): number {
  let results = 0
  for (const message of options.prompt) if (message.role === 'tool') results += message.content.length
  return results
}

const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    const turn = scriptTurn(serviceSteps, toolResultsIn(options))
    const call = turn.toolCalls?.[0]
    return {
      content: call
        ? [{ type: 'tool-call' as const, toolCallId: call.id!, toolName: call.name, input: JSON.stringify(call.args) }]
        : [{ type: 'text' as const, text: turn.text! }],
      finishReason: { unified: call ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
      usage,
      warnings: [],
    }
  },
})
const tools = { add: tool({ description: 'Adds two numbers', inputSchema: addSchema, execute: async (input) => addNumbers(input) }) }

serveRuns(async () => {
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(serviceSteps + 1) })
  let toolResults = 0
  for (const step of result.steps) for (const part of step.toolResults) if (part.output === (part.input as { a: number }).a + 1) toolResults++
  return { text: result.text, toolResults }
})

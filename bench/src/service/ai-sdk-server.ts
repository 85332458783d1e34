// The AI SDK service: `generateText` with the workload's scripted LanguageModelV3 (peers/ai-sdk.ts), stateless (its turn
// is the number of tool results in the prompt), and the shared zod tool, persisting nothing.
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'
import { generateText, stepCountIs } from 'ai'
import { aiSdkAddTool, scriptedAiSdkModel } from '../peers/ai-sdk.js'
import { scriptTurn } from '../workload.js'
import { serveRuns, serviceSteps } from './http-service.js'

function toolResultsIn(options: LanguageModelV3CallOptions): number {
  let results = 0
  for (const message of options.prompt) if (message.role === 'tool') results += message.content.length
  return results
}

const model = scriptedAiSdkModel((options) => scriptTurn(serviceSteps, toolResultsIn(options)))
const tools = { add: aiSdkAddTool }

serveRuns(async () => {
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(serviceSteps + 1) })
  let toolResults = 0
  for (const step of result.steps) for (const part of step.toolResults) if (part.output === (part.input as { a: number }).a + 1) toolResults++
  return { text: result.text, toolResults }
})

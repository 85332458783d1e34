// Runs the shared provider conformance suite against both OpenAI APIs, through the real openai SDK
// over real HTTP to the scripted loopback wires of @spindle/testing.
import { describeLanguageModel, openaiChatWire, openaiResponsesWire, type LanguageModelConformanceContext } from '@spindle/testing'
import { createOpenAI } from './index.js'

const provider = (context: LanguageModelConformanceContext) =>
  createOpenAI({
    apiKey: context.apiKey,
    baseURL: `${context.baseURL}/v1`,
    maxRetries: context.maxRetries,
    retry: { initialDelayMs: context.retryInitialDelayMs },
    timeouts: { firstChunkMs: context.firstChunkTimeoutMs, idleMs: context.idleTimeoutMs },
  })

describeLanguageModel('@spindle/openai responses', {
  wire: openaiResponsesWire,
  createModel: (context) => provider(context).responses(context.modelId),
})

describeLanguageModel('@spindle/openai chat', {
  wire: openaiChatWire,
  createModel: (context) => provider(context).chat(context.modelId),
})

// The provider conformance suite through fromAiSdk: the AI SDK's own provider packages (@ai-sdk/openai-compatible,
// @ai-sdk/anthropic) over real HTTP to the scripted loopback wires of @spindle/testing.
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { anthropicMessagesWire, describeLanguageModel, openaiChatWire, type LanguageModelConformanceContext } from '@spindle/testing'
import { fromAiSdk } from '../index.js'

const adapterOptions = (context: LanguageModelConformanceContext) => ({
  maxRetries: context.maxRetries,
  retry: { initialDelayMs: context.retryInitialDelayMs },
  timeouts: { firstChunkMs: context.firstChunkTimeoutMs, idleMs: context.idleTimeoutMs },
  secrets: [context.apiKey],
})

describeLanguageModel('@spindle/ai-sdk with @ai-sdk/openai-compatible', {
  wire: openaiChatWire,
  createModel: (context) =>
    fromAiSdk(
      createOpenAICompatible({
        name: 'compatible',
        apiKey: context.apiKey,
        baseURL: `${context.baseURL}/v1`,
        includeUsage: true,
        supportsStructuredOutputs: true,
      }).chatModel(context.modelId),
      adapterOptions(context),
    ),
})

describeLanguageModel('@spindle/ai-sdk with @ai-sdk/anthropic', {
  wire: anthropicMessagesWire,
  createModel: (context) => fromAiSdk(createAnthropic({ apiKey: context.apiKey, baseURL: `${context.baseURL}/v1` })(context.modelId), adapterOptions(context)),
})

// The shared provider conformance suite, rendered on the Anthropic Messages wire.
import { anthropicMessagesWire, describeLanguageModel } from '@spindle/testing'
import { createAnthropic } from './index.js'

describeLanguageModel('@spindle/anthropic messages', {
  wire: anthropicMessagesWire,
  modelId: 'claude-sonnet-5',
  createModel: (context) =>
    createAnthropic({
      apiKey: context.apiKey,
      baseURL: context.baseURL,
      retry: { maxRetries: context.maxRetries, initialDelayMs: context.retryInitialDelayMs },
      firstChunkTimeoutMs: context.firstChunkTimeoutMs,
      idleTimeoutMs: context.idleTimeoutMs,
    }).messages(context.modelId),
})

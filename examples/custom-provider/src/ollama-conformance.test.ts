// The provider conformance suite of @spindle/testing against Ollama's native NDJSON protocol on a loopback server.
import { describeLanguageModel } from '@spindle/testing'
import { createOllama } from './index.js'
import { ollamaChatWire } from './ollama-wire.js'

describeLanguageModel('spindle-provider-ollama', {
  wire: ollamaChatWire,
  modelId: 'llama3.2',
  createModel: (context) =>
    createOllama({
      baseURL: context.baseURL,
      apiKey: context.apiKey,
      maxRetries: context.maxRetries,
      initialDelayMs: context.retryInitialDelayMs,
      firstChunkTimeoutMs: context.firstChunkTimeoutMs,
      idleTimeoutMs: context.idleTimeoutMs,
    }).languageModel(context.modelId),
  skip: {
    'response-metadata': '/api/chat has no response id (the served model name is reported)',
    'argument-deltas': 'Ollama sends each tool call whole, its arguments as one JSON object, never as fragments',
  },
})

// Attribute and metric names: OpenTelemetry GenAI semantic conventions (v1.41.0), plus spindle.* for what they do
// not cover.
/**
 * The span and metric attribute names `OtelObserver` writes (exported as `genAiAttributes`): those of the
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`), and `spindle.*` for what they do not cover (run id, step,
 * cost, reused tool results). Use them to query or assert on the exported spans.
 *
 * @example
 * expect(span.attributes[genAiAttributes.requestModel]).toBe('gpt-4.1-mini')
 */
export const attributes = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestStream: 'gen_ai.request.stream',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cachedInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
  runId: 'spindle.run.id',
  parentRunId: 'spindle.parent_run.id',
  step: 'spindle.step',
  finishReason: 'spindle.finish_reason',
  steps: 'spindle.run.steps',
  costUsd: 'spindle.usage.cost_usd',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  resumedFromStep: 'spindle.resumed_from_step',
  reused: 'spindle.tool.reused',
  linkType: 'spindle.link.type',
} as const

/**
 * The names of the metrics `OtelObserver` records: the GenAI conventions' operation duration and token usage, and
 * Spindle's run duration, steps, tool duration, and session-gate and queue waits.
 */
export const metricNames = {
  operationDuration: 'gen_ai.client.operation.duration',
  tokenUsage: 'gen_ai.client.token.usage',
  runDuration: 'spindle.run.duration',
  runSteps: 'spindle.run.steps',
  toolDuration: 'spindle.tool.duration',
  gateWait: 'spindle.gate.wait',
  queueWait: 'spindle.queue.wait',
} as const

/** Bucket boundaries the GenAI conventions advise for `gen_ai.client.operation.duration` (seconds). */
export const durationBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]

/** Bucket boundaries the GenAI conventions advise for `gen_ai.client.token.usage` (tokens). */
export const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]

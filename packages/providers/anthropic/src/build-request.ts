// A Spindle ModelRequest → the body of a streaming `POST /v1/messages`.
import type Anthropic from '@anthropic-ai/sdk'
import { ConfigurationError, type ModelCapabilities, type ModelRequest } from '@spindle/core'
import { parseAnthropicRequestOptions, type AnthropicRequestOptions } from './anthropic-provider-options.js'
import { convertMessages } from './convert-messages.js'

type Body = Anthropic.Messages.MessageCreateParamsStreaming

/** When structured output is enforced with a forced tool, the tool's name (its input is the answer). */
export interface BuiltRequest {
  body: Body
  jsonToolName: string | undefined
}

const ephemeral = { type: 'ephemeral' } as const

/**
 * Builds the request body; `providerOptions.anthropic` of the request wins over the model's defaults.
 * `max_tokens` defaults to the model's output limit (raised above the thinking budget when needed,
 * never past that limit); with extended thinking on, `temperature`/`top_p`/`top_k` are omitted
 * because the API rejects them.
 */
export function buildMessagesRequest(
  modelId: string,
  capabilities: ModelCapabilities,
  request: ModelRequest,
  defaults: AnthropicRequestOptions = {},
): BuiltRequest {
  const options = { ...defaults, ...parseAnthropicRequestOptions(request.providerOptions?.anthropic) }
  const cache = options.cacheControl ?? true
  const { system, messages } = convertMessages(request.messages)
  if (cache && system.length > 0) system[system.length - 1] = { ...system[system.length - 1]!, cache_control: ephemeral }

  // Thinking the API would refuse in this request is left out of it (its own advice: "to avoid this requirement,
  // disable thinking"), see `thinkingRefused`.
  const thinking =
    options.thinking !== undefined && options.thinking.type !== 'disabled' && thinkingRefused(messages, request, options) ? undefined : options.thinking
  const thinkingOn = thinking !== undefined && thinking.type !== 'disabled'
  const budget = thinking?.type === 'enabled' ? thinking.budget_tokens : 0
  const maxTokens = maxTokensFor(modelId, capabilities, request.maxOutputTokens, budget)

  const tools: Anthropic.Messages.Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema,
  }))
  let toolChoice: Anthropic.Messages.ToolChoice | undefined = mapToolChoice(request.toolChoice)
  let jsonToolName: string | undefined
  let outputConfig: Anthropic.Messages.OutputConfig | undefined

  if (request.responseFormat) {
    if ((options.structuredOutput ?? 'output-format') === 'tool') {
      jsonToolName = request.responseFormat.name ?? 'json_response'
      tools.push({
        name: jsonToolName,
        description: 'Respond with the final answer by calling this tool; its input is the answer.',
        input_schema: request.responseFormat.schema as Anthropic.Messages.Tool.InputSchema,
      })
      toolChoice = { type: 'tool', name: jsonToolName }
    } else {
      outputConfig = { format: { type: 'json_schema', schema: request.responseFormat.schema as Record<string, unknown> } }
    }
  }
  if (toolChoice && options.disableParallelToolUse && toolChoice.type !== 'none') toolChoice = { ...toolChoice, disable_parallel_tool_use: true }
  else if (!toolChoice && options.disableParallelToolUse && tools.length > 0) toolChoice = { type: 'auto', disable_parallel_tool_use: true }
  if (cache && tools.length > 0) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: ephemeral }

  const body: Body = {
    model: modelId,
    max_tokens: maxTokens,
    stream: true,
    // System first: the body reads in conversation order.
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice && tools.length > 0 ? { tool_choice: toolChoice } : {}),
    ...(request.stopSequences?.length ? { stop_sequences: request.stopSequences } : {}),
    ...(!thinkingOn && request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(!thinkingOn && request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(!thinkingOn && options.topK !== undefined ? { top_k: options.topK } : {}),
    ...(thinking ? { thinking: thinking as Anthropic.Messages.ThinkingConfigParam } : {}),
    ...(outputConfig ? { output_config: outputConfig } : {}),
    ...(options.userId ? { metadata: { user_id: options.userId } } : {}),
  }
  return { body, jsonToolName }
}

/**
 * Why the API would refuse thinking in this request, if it would:
 * - a tool-use cycle in progress whose assistant turn does not open with a thinking block: with thinking on, the
 *   final assistant message must start with one ("Expected `thinking` or `redacted_thinking`, but found
 *   `tool_use`"). That turn came from another model (a `fallbackModel` chain that moved here mid-loop; reasoning
 *   another provider signed is dropped), or from a request made with thinking off;
 * - a forced tool (`toolChoice: 'required'` or a named tool, or structured output through a tool): "Thinking may
 *   not be enabled when tool_choice forces tool use".
 * The next request (a new assistant turn, or a new cycle) thinks again.
 */
function thinkingRefused(messages: Anthropic.Messages.MessageParam[], request: ModelRequest, options: AnthropicRequestOptions): boolean {
  if (request.toolChoice === 'required' || (typeof request.toolChoice === 'object' && request.toolChoice !== null)) return true
  if (request.responseFormat && options.structuredOutput === 'tool') return true
  const last = messages[messages.length - 1]
  const assistant = messages[messages.length - 2]
  if (last?.role !== 'user' || assistant?.role !== 'assistant' || typeof last.content === 'string' || typeof assistant.content === 'string') return false
  if (!last.content.some((block) => block.type === 'tool_result') || !assistant.content.some((block) => block.type === 'tool_use')) return false
  const first = assistant.content[0]
  return first?.type !== 'thinking' && first?.type !== 'redacted_thinking'
}

/**
 * `max_tokens` counts thinking and answer together and must exceed `budget_tokens`. A requested
 * limit at or below the budget is raised to leave room for an answer (up to 4096 tokens), but never
 * past the model's output limit, which the API enforces. A budget that leaves no room below that limit
 * is the caller's setting to fix, so it fails here rather than being lowered behind their back.
 */
function maxTokensFor(modelId: string, capabilities: ModelCapabilities, requested: number | undefined, budget: number): number {
  const limit = capabilities.maxOutputTokens
  const maxTokens = requested ?? limit
  if (budget === 0 || maxTokens > budget) return maxTokens
  if (budget >= limit) {
    throw new ConfigurationError(
      `[spindle/anthropic] thinking.budget_tokens (${budget}) must be below ${modelId}'s output limit of ${limit} tokens (max_tokens counts thinking and answer together); ` +
        `set budget_tokens to at most ${limit - 1}, better well below it to leave room for the answer (or, if the model allows more, raise capabilities.maxOutputTokens in createAnthropic)`,
      { details: { budgetTokens: budget, maxOutputTokens: limit } },
    )
  }
  return Math.min(budget + Math.min(limit, 4_096), limit)
}

function mapToolChoice(choice: ModelRequest['toolChoice']): Anthropic.Messages.ToolChoice | undefined {
  if (choice === undefined) return undefined
  if (choice === 'auto') return { type: 'auto' }
  if (choice === 'none') return { type: 'none' }
  if (choice === 'required') return { type: 'any' }
  return { type: 'tool', name: choice.name }
}

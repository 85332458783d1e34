// Converts a Spindle ModelRequest into Chat Completions parameters, for OpenAI and every
// OpenAI-compatible server (which may want `max_tokens` instead of `max_completion_tokens`).
import { ConfigurationError, type ModelMessage, type ModelRequest } from '@spindle/core'
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions'
import { mergeProviderOptions } from '../convert/merge-provider-options.js'
import { fileUrl, isStrictCompatible, toolArgumentsText } from '../convert/shared-content.js'
import { isReasoningModel } from '../model-traits.js'
import { pushToolResults } from './chat-tool-results.js'

export interface ChatConversionOptions {
  provider: string
  modelId: string
  reasoning?: boolean
  /** The field carrying `maxOutputTokens`: OpenAI uses `max_completion_tokens`, many compatible servers `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens'
}

export function convertToChatRequest(request: ModelRequest, options: ChatConversionOptions): ChatCompletionCreateParamsStreaming {
  const reasoning = options.reasoning ?? isReasoningModel(options.modelId)
  const params: ChatCompletionCreateParamsStreaming = {
    model: options.modelId,
    messages: convertMessages(request.messages, options.provider, reasoning),
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.maxOutputTokens !== undefined) (params as unknown as Record<string, number>)[options.maxTokensField] = request.maxOutputTokens
  if (!reasoning) {
    if (request.temperature !== undefined) params.temperature = request.temperature
    if (request.topP !== undefined) params.top_p = request.topP
  }
  if (request.stopSequences?.length) params.stop = request.stopSequences
  if (request.tools?.length) {
    params.tools = request.tools.map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema as Record<string, unknown>,
        strict: isStrictCompatible(tool.inputSchema),
      },
    }))
  }
  if (request.toolChoice !== undefined) {
    params.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', function: { name: request.toolChoice.name } }
  }
  if (request.responseFormat) {
    params.response_format = {
      type: 'json_schema',
      json_schema: {
        name: request.responseFormat.name ?? 'response',
        schema: request.responseFormat.schema as Record<string, unknown>,
        strict: isStrictCompatible(request.responseFormat.schema),
      },
    }
  }
  // Merged in last, nested objects key by key: `{ stream_options: { … } }` keeps `include_usage`.
  const passthrough = request.providerOptions?.[options.provider] ?? request.providerOptions?.openai
  if (passthrough !== undefined) mergeProviderOptions(params, passthrough, options.provider)
  return params
}

function convertMessages(messages: ModelMessage[], provider: string, reasoning: boolean): ChatCompletionMessageParam[] {
  const result: ChatCompletionMessageParam[] = []
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        result.push({ role: reasoning ? 'developer' : 'system', content: message.content })
        break
      case 'user':
        if (typeof message.content === 'string') result.push({ role: 'user', content: message.content })
        else {
          result.push({
            role: 'user',
            content: message.content.map((part): ChatCompletionContentPart => {
              if (part.type === 'text') return { type: 'text', text: part.text }
              const url = fileUrl(part, provider)
              if (part.mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url } }
              if (!url.startsWith('data:')) throw fileUrlUnsupported(part.name ?? url, provider)
              return { type: 'file', file: { file_data: url, filename: part.name ?? 'file' } }
            }),
          })
        }
        break
      case 'assistant': {
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
        const toolCalls: ChatCompletionMessageToolCall[] = message.content.flatMap((part) =>
          part.type === 'tool-call'
            ? [{ id: part.toolCallId, type: 'function' as const, function: { name: part.toolName, arguments: toolArgumentsText(part.args) } }]
            : [],
        )
        result.push({ role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) })
        break
      }
      case 'tool':
        pushToolResults(result, message.content)
        break
    }
  }
  return result
}

/**
 * Chat Completions takes a file only as base64 `file_data` (or an uploaded `file_id`), never as a URL
 * (only images may be URLs); sending the URL as `file_data` would be rejected by the API.
 */
function fileUrlUnsupported(name: string, provider: string): ConfigurationError {
  return new ConfigurationError(
    `[spindle/${provider}] file "${name}" is a URL, but Chat Completions takes files only as base64 data; ` +
      `pass the file's bytes (base64 or a data: URL), or use the Responses API (\`${provider}.responses(modelId)\`), which accepts file URLs`,
  )
}

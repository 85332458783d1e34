// Spindle's ModelRequest → the AI SDK call options (prompt, tools, tool choice, structured output, settings).
// The same shapes serve spec v3 and v2 (tool results as `output: { type, value }`, tool calls as `input`).
import type { JsonValue, ModelMessage, ModelRequest, ToolResultPart } from '@spindle/core'
import type { JSONSchema7, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput, SharedV3ProviderOptions } from '@ai-sdk/provider'
import type { AiSdkCallOptions } from './ai-sdk-types.js'
import { reasoningProviderOptions } from './signature.js'

/** Builds the call options of one request; `providerKey` is where foreign reasoning signatures go (e.g. `anthropic`). */
export function toCallOptions(request: ModelRequest, providerKey: string, signal: AbortSignal, headers: Record<string, string> | undefined): AiSdkCallOptions {
  const options: AiSdkCallOptions = { prompt: toPrompt(request.messages, providerKey), abortSignal: signal }
  if (request.tools?.length) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as JSONSchema7,
    }))
  }
  const choice = request.toolChoice
  if (choice !== undefined) options.toolChoice = typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name }
  if (request.responseFormat) {
    options.responseFormat = {
      type: 'json',
      schema: request.responseFormat.schema as JSONSchema7,
      ...(request.responseFormat.name !== undefined && { name: request.responseFormat.name }),
    }
  }
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens
  if (request.temperature !== undefined) options.temperature = request.temperature
  if (request.topP !== undefined) options.topP = request.topP
  if (request.stopSequences?.length) options.stopSequences = request.stopSequences
  // Spindle keys provider options by provider name, as the AI SDK does (`{ google: { thinkingConfig } }`).
  if (request.providerOptions) options.providerOptions = request.providerOptions as SharedV3ProviderOptions
  if (headers) options.headers = headers
  return options
}

function toPrompt(messages: readonly ModelMessage[], providerKey: string): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = []
  for (const message of messages) {
    const converted = toMessage(message, providerKey)
    if (converted) prompt.push(converted)
  }
  return prompt
}

function toMessage(message: ModelMessage, providerKey: string): LanguageModelV3Message | undefined {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      if (typeof message.content === 'string') return { role: 'user', content: [{ type: 'text', text: message.content }] }
      return {
        role: 'user',
        content: message.content.map((part) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : {
                type: 'file',
                mediaType: part.mediaType,
                data: /^https?:\/\//.test(part.data) ? new URL(part.data) : part.data,
                ...(part.name !== undefined && { filename: part.name }),
              },
        ),
      }
    case 'assistant': {
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = []
      for (const part of message.content) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text })
        else if (part.type === 'reasoning') {
          const providerOptions = reasoningProviderOptions(providerKey, part.signature, part.redacted)
          content.push({ type: 'reasoning', text: part.text, ...(providerOptions !== undefined && { providerOptions }) })
        } else content.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.args })
      }
      return { role: 'assistant', content }
    }
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map((part) => ({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: toolOutput(part) })),
      }
  }
}

function toolOutput(part: ToolResultPart): LanguageModelV3ToolResultOutput {
  const value: JsonValue = part.result
  if (part.isError) return typeof value === 'string' ? { type: 'error-text', value } : { type: 'error-json', value }
  return typeof value === 'string' ? { type: 'text', value } : { type: 'json', value }
}

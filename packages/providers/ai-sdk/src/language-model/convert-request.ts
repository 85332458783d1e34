// Spindle's ModelRequest → the AI SDK call options (prompt, tools, tool choice, structured output, settings).
// The same shapes serve spec v3 and v2 (tool results as `output: { type, value }`, tool calls as `input`), except
// an image in a tool result: `image-data` in v3, `media` in v2. Every string goes well formed (no lone surrogate).
import type { JsonValue, ModelMessage, ModelRequest, ToolResultPart } from '@spindle/core'
import { toolResultParts, wellFormed } from '@spindle/core/plugin-kit'
import type { JSONSchema7, LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultOutput, SharedV3ProviderOptions } from '@ai-sdk/provider'
import type { AiSdkCallOptions } from './ai-sdk-types.js'
import { reasoningProviderOptions } from './signature.js'

/** The AI SDK specification version of the model called: how an image in a tool result is written. */
export type AiSdkSpecificationVersion = 'v3' | 'v2'

/**
 * Builds the call options of one request; `providerKey` is where foreign reasoning signatures go (e.g. `anthropic`).
 * The prompt's strings are made well formed (a lone surrogate becomes U+FFFD), as every Spindle provider does.
 */
export function toCallOptions(
  request: ModelRequest,
  providerKey: string,
  signal: AbortSignal,
  headers: Record<string, string> | undefined,
  version: AiSdkSpecificationVersion = 'v3',
): AiSdkCallOptions {
  const options: AiSdkCallOptions = { prompt: wellFormed(toPrompt(request.messages, providerKey, version)), abortSignal: signal }
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

function toPrompt(messages: readonly ModelMessage[], providerKey: string, version: AiSdkSpecificationVersion): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = []
  for (const message of messages) {
    const converted = toMessage(message, providerKey, version)
    if (converted) prompt.push(converted)
  }
  return prompt
}

function toMessage(message: ModelMessage, providerKey: string, version: AiSdkSpecificationVersion): LanguageModelV3Message | undefined {
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
        content: message.content.map((part) => ({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: toolOutput(part, version),
        })),
      }
  }
}

function toolOutput(part: ToolResultPart, version: AiSdkSpecificationVersion): LanguageModelV3ToolResultOutput {
  const value: JsonValue = part.result
  if (part.isError) return typeof value === 'string' ? { type: 'error-text', value } : { type: 'error-json', value }
  if (typeof value === 'string') return { type: 'text', value }
  // A result holding images (an MCP CallToolResult, a FilePart): the model sees them as images, not as base64 text.
  const parts = toolResultParts(value)
  if (parts === undefined) return { type: 'json', value }
  const imageType = version === 'v2' ? 'media' : 'image-data'
  const content = parts.map((item) => (item.type === 'text' ? item : { type: imageType, data: item.data, mediaType: item.mediaType }))
  // v2's `media` part is not in v3's types; the v2 model reads it.
  return { type: 'content', value: content as Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'] }
}

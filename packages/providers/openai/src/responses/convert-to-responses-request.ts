// Converts a Spindle ModelRequest into Responses API parameters (input items, tools, tool choice,
// structured output, limits). Stateless by default (`store: false`): Spindle owns the conversation.
import type { JsonValue, ModelMessage, ModelRequest } from '@spindle/core'
import type { ResponseCreateParamsStreaming, ResponseFunctionCallOutputItemList, ResponseInputItem, Tool } from 'openai/resources/responses/responses'
import { mergeProviderOptions } from '../convert/merge-provider-options.js'
import { toolResultParts } from '@spindle/core/plugin-kit'
import { fileUrl, isStrictCompatible, toolArgumentsText, toolResultText } from '../convert/shared-content.js'
import { isReasoningModel } from '../model-traits.js'
import { decodeReasoningSignature } from './reasoning-signature.js'

export interface ResponsesConversionOptions {
  provider: string
  modelId: string
  /** Force reasoning-model handling (developer role, no temperature, reasoning summaries); guessed from the id by default. */
  reasoning?: boolean
}

export function convertToResponsesRequest(request: ModelRequest, options: ResponsesConversionOptions): ResponseCreateParamsStreaming {
  const reasoning = options.reasoning ?? isReasoningModel(options.modelId)
  const params: ResponseCreateParamsStreaming = {
    model: options.modelId,
    input: convertMessages(request.messages, options.provider, reasoning),
    stream: true,
    store: false,
  }
  if (request.maxOutputTokens !== undefined) params.max_output_tokens = request.maxOutputTokens
  if (!reasoning) {
    if (request.temperature !== undefined) params.temperature = request.temperature
    if (request.topP !== undefined) params.top_p = request.topP
  } else {
    params.reasoning = { summary: 'auto' }
    params.include = ['reasoning.encrypted_content']
  }
  if (request.tools?.length) {
    params.tools = request.tools.map((tool): Tool => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as Record<string, unknown>,
      strict: isStrictCompatible(tool.inputSchema),
    }))
  }
  if (request.toolChoice !== undefined) {
    params.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', name: request.toolChoice.name }
  }
  if (request.responseFormat) {
    params.text = {
      format: {
        type: 'json_schema',
        name: request.responseFormat.name ?? 'response',
        schema: request.responseFormat.schema as Record<string, unknown>,
        strict: isStrictCompatible(request.responseFormat.schema),
      },
    }
  }
  // Provider options are merged in last, so users can set anything the API takes (reasoning effort, store…)
  // without losing the defaults beside it (reasoning summaries, encrypted reasoning content).
  const passthrough = request.providerOptions?.[options.provider] ?? request.providerOptions?.openai
  if (passthrough !== undefined) mergeProviderOptions(params, passthrough, options.provider)
  return params
}

function convertMessages(messages: ModelMessage[], provider: string, reasoning: boolean): ResponseInputItem[] {
  const input: ResponseInputItem[] = []
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        input.push({ role: reasoning ? 'developer' : 'system', content: message.content })
        break
      case 'user':
        if (typeof message.content === 'string') input.push({ role: 'user', content: message.content })
        else {
          input.push({
            role: 'user',
            content: message.content.map((part) => {
              if (part.type === 'text') return { type: 'input_text' as const, text: part.text }
              const url = fileUrl(part, provider)
              if (part.mediaType.startsWith('image/')) return { type: 'input_image' as const, image_url: url, detail: 'auto' as const }
              return url.startsWith('data:')
                ? { type: 'input_file' as const, file_data: url, filename: part.name ?? 'file' }
                : { type: 'input_file' as const, file_url: url }
            }),
          })
        }
        break
      case 'assistant': {
        let text = ''
        const flushText = () => {
          if (text) input.push({ role: 'assistant', content: text })
          text = ''
        }
        for (const part of message.content) {
          if (part.type === 'text') text += part.text
          else if (part.type === 'reasoning') {
            const item = decodeReasoningSignature(part.signature)
            if (!item) continue // Reasoning from another provider, or without its encrypted content, cannot be sent back.
            flushText()
            input.push({
              type: 'reasoning',
              id: item.id,
              encrypted_content: item.encrypted_content,
              summary: part.text ? [{ type: 'summary_text', text: part.text }] : [],
            })
          } else {
            flushText()
            input.push({ type: 'function_call', call_id: part.toolCallId, name: part.toolName, arguments: toolArgumentsText(part.args) })
          }
        }
        flushText()
        break
      }
      case 'tool':
        for (const result of message.content) {
          input.push({ type: 'function_call_output', call_id: result.toolCallId, output: functionCallOutput(result.result, result.isError) })
        }
        break
    }
  }
  return input
}

/**
 * A tool result as `function_call_output.output`: text, or, when it holds images (see `toolResultParts`), a list of
 * `input_text` and `input_image` items so the model sees the images.
 */
function functionCallOutput(result: JsonValue, isError: boolean | undefined): string | ResponseFunctionCallOutputItemList {
  const parts = toolResultParts(result)
  if (!parts) return toolResultText(result, isError)
  const items: ResponseFunctionCallOutputItemList = parts.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : { type: 'input_image', image_url: `data:${part.mediaType};base64,${part.data}`, detail: 'auto' },
  )
  return isError ? [{ type: 'input_text', text: 'Error:' }, ...items] : items
}

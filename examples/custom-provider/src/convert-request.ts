// Spindle's ModelRequest → the body of Ollama's POST /api/chat (native protocol, streaming).
import type { JsonValue, ModelMessage, ModelRequest } from '@spindle/core'

/** One message of Ollama's chat API. */
export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  images?: string[]
  thinking?: string
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: JsonValue } }>
  tool_name?: string
  tool_call_id?: string
}

/** The request body, with `stream: true` always (the provider reads NDJSON). */
export interface OllamaChatBody {
  model: string
  messages: OllamaMessage[]
  stream: true
  tools?: Array<{ type: 'function'; function: { name: string; description: string; parameters: unknown } }>
  format?: unknown
  options?: Record<string, unknown>
  think?: boolean
  keep_alive?: string | number
}

/**
 * Builds the /api/chat body. Ollama has no `tool_choice`: `none` drops the tools, other choices send them all.
 * `providerOptions.ollama` may carry `think`, `keep_alive` and extra model `options` (e.g. `num_ctx`).
 */
export function convertRequest(modelId: string, request: ModelRequest): OllamaChatBody {
  const extra = request.providerOptions?.ollama ?? {}
  const options: Record<string, unknown> = {
    ...(typeof extra.options === 'object' && extra.options !== null && !Array.isArray(extra.options) ? extra.options : {}),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.topP !== undefined && { top_p: request.topP }),
    ...(request.maxOutputTokens !== undefined && { num_predict: request.maxOutputTokens }),
    ...(request.stopSequences?.length && { stop: request.stopSequences }),
  }
  const body: OllamaChatBody = { model: modelId, messages: request.messages.flatMap(convertMessage), stream: true }
  if (request.tools?.length && request.toolChoice !== 'none') {
    body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }))
  }
  if (request.responseFormat) body.format = request.responseFormat.schema
  if (Object.keys(options).length > 0) body.options = options
  if (typeof extra.think === 'boolean') body.think = extra.think
  if (typeof extra.keep_alive === 'string' || typeof extra.keep_alive === 'number') body.keep_alive = extra.keep_alive
  return body
}

function convertMessage(message: ModelMessage): OllamaMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }]
    case 'user': {
      if (typeof message.content === 'string') return [{ role: 'user', content: message.content }]
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
      // Ollama takes base64 images only; artifact references and URLs must be resolved by a context adapter first.
      const images = message.content.flatMap((part) =>
        part.type === 'file' && part.mediaType.startsWith('image/') && !/^(artifact:|https?:)/.test(part.data) ? [part.data] : [],
      )
      return [{ role: 'user', content: text, ...(images.length > 0 && { images }) }]
    }
    case 'assistant': {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
      const thinking = message.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('')
      const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [part] : []))
      return [
        {
          role: 'assistant',
          content: text,
          ...(thinking && { thinking }),
          ...(calls.length > 0 && { tool_calls: calls.map((call) => ({ id: call.toolCallId, function: { name: call.toolName, arguments: call.args } })) }),
        },
      ]
    }
    case 'tool':
      return message.content.map((result) => ({
        role: 'tool',
        content: typeof result.result === 'string' ? result.result : JSON.stringify(result.result),
        tool_name: result.toolName,
        tool_call_id: result.toolCallId,
      }))
  }
}

// Client tools: the tools an AG-UI client lists in `RunAgentInput.tools` are offered to the model as Spindle tools that
// suspend the run like an approval. The client runs the call itself and sends its result as a tool message in the
// next RunAgentInput; `fromRunAgentInput` turns that message into an approval plus the result, which the tool returns
// when the resumed run executes it.
import { ConfigurationError, defineTool, jsonSchema, type JsonSchema, type Tool } from '@spindle/core'
import { clientToolResultsKey } from './state.js'

/** A tool the AG-UI client defines (`Tool` of `@ag-ui/core`). */
export interface AgUiClientTool {
  name: string
  description: string
  /** Its input as JSON Schema (default: any object). */
  parameters?: unknown
  [key: string]: unknown
}

/** A client's answer to a call of one of its tools (from a `role: 'tool'` message). */
export interface ClientToolResult {
  /** The message's content: parsed when it is JSON, the text otherwise. */
  result: unknown
  /** The message's `error`, when the client's tool failed. */
  error?: string
}

const anyObject: JsonSchema = { type: 'object', properties: {}, additionalProperties: true }

/**
 * Spindle tools for the client's tools, keyed by name: add them to the agent's tools for the run and for its resume.
 *
 * @example
 * const agent = { ...assistant, tools: { ...assistant.tools, ...clientTools(runInput.tools) } }
 */
export function clientTools(tools: readonly AgUiClientTool[] | undefined): Record<string, Tool> {
  const out: Record<string, Tool> = {}
  for (const tool of tools ?? []) {
    if (typeof tool?.name !== 'string') throw new ConfigurationError('[spindle/ai-sdk] clientTools: every AG-UI tool needs a name')
    const parameters =
      tool.parameters !== undefined && typeof tool.parameters === 'object' && tool.parameters !== null ? (tool.parameters as JsonSchema) : anyObject
    out[tool.name] = defineTool({
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: jsonSchema(parameters),
      effect: 'external',
      // The run stops at each call: the client, not the server, runs it.
      needsApproval: true,
      execute(_input, context) {
        const results = context.runtime?.get(clientToolResultsKey) as Record<string, ClientToolResult> | undefined
        const answer = results?.[context.callId]
        if (answer === undefined) {
          throw new ConfigurationError(
            `[spindle/ai-sdk] client tool "${tool.name}": no result from the client for call ${context.callId}; resume the run with the store of fromRunAgentInput(...).runtimeStore()`,
          )
        }
        if (answer.error !== undefined) throw new Error(answer.error)
        return answer.result
      },
    })
  }
  return out
}

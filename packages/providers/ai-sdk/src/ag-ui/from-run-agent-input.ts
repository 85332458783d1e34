// fromRunAgentInput: an AG-UI `RunAgentInput` as a Spindle run's input on the session `threadId`: the user messages
// after the last assistant message (the session keeps the history), the client's tools (offered to the model), its
// state (the run's RuntimeStore), its context (instructions), its `resume` entries (approvals) and the tool messages
// answering calls of its client tools (approvals that carry the client's result).
import { AdmissionError, RuntimeStore, type AgentSpec, type FilePart, type TextPart, type Tool, type UserMessage } from '@spindle/core'
import type { UIApproval } from '../ui/from-ui-messages.js'
import { interruptIdSeparator } from './ag-ui-events.js'
import { clientTools, type AgUiClientTool, type ClientToolResult } from './client-tools.js'
import { clientToolResultsKey } from './state.js'

/** The parts of `RunAgentInput` (`@ag-ui/core`) the adapter reads. */
export interface RunAgentInputLike {
  threadId: string
  runId: string
  messages: Array<{ id: string; role: string; content?: unknown; toolCallId?: string; error?: string; [key: string]: unknown }>
  tools?: AgUiClientTool[]
  context?: Array<{ description: string; value: string }>
  state?: unknown
  resume?: Array<{ interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }>
  [key: string]: unknown
}

/**
 * An AG-UI `RunAgentInput` in Spindle's terms, returned by `fromRunAgentInput(input)`: the session id (the
 * thread id), the new user messages, decisions on interrupted calls, the client's tools, state and context, and the
 * results of client tool calls. An input that is not a valid `RunAgentInput` is rejected with an `AdmissionError`.
 */
export interface FromRunAgentInputResult {
  /** Use it as the run's `sessionId`. */
  sessionId: string
  input: UserMessage[] | undefined
  /** Decisions on interrupted tool calls and answered client tool calls (pass them to `approveAndResume`). */
  approvals: UIApproval[]
  /** The client's tools as Spindle tools (add them to the agent's tools). */
  tools: Record<string, Tool>
  /** The client's state (an object; `{}` when it sent none). */
  state: Record<string, unknown>
  /** Results of client tool calls, by Spindle call id. */
  clientToolResults: Record<string, ClientToolResult>
  /** The client's context entries as instructions (empty when it sent none). */
  contextInstructions: string
  /** A RuntimeStore holding the client's state (one key per state key) and the client tool results: pass it as the run's `runtime`. */
  runtimeStore(): RuntimeStore
  /** The agent with the client's tools added and its context appended to the instructions. */
  agentWith(agent: AgentSpec): AgentSpec
}

/**
 * @example
 * const run = fromRunAgentInput(await request.json())
 * const agent = run.agentWith(assistant)
 * const events = run.approvals.length
 *   ? approveAndResume(runtime, run.approvals, { agent, runtime: run.runtimeStore() })
 *   : runtime.stream({ sessionId: run.sessionId, agent, input: run.input!, runtime: run.runtimeStore() })
 * return toAgUiResponse(events, { clientTools: Object.keys(run.tools) })
 */
export function fromRunAgentInput(runInput: RunAgentInputLike): FromRunAgentInputResult {
  if (typeof runInput?.threadId !== 'string' || !Array.isArray(runInput.messages)) {
    throw new AdmissionError('[spindle/ai-sdk] fromRunAgentInput: expected an AG-UI RunAgentInput ({ threadId, runId, messages, tools, context })')
  }
  const approvals: UIApproval[] = []
  for (const entry of runInput.resume ?? []) {
    const { runId, callId } = splitId(entry.interruptId, 'interrupt')
    const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown }
    const approved = entry.status === 'resolved' && payload.approved !== false
    approvals.push({ runId, callId, approved, ...(typeof payload.reason === 'string' && { reason: payload.reason }) })
  }
  let lastAssistant = -1
  runInput.messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index
  })
  const input: UserMessage[] = []
  const clientToolResults: Record<string, ClientToolResult> = {}
  for (const message of runInput.messages.slice(lastAssistant + 1)) {
    if (message.role === 'tool' && typeof message.toolCallId === 'string' && message.toolCallId.includes(interruptIdSeparator)) {
      // A client tool's call id carries its run (`toAgUiEvents` issues it so); other tool messages are history.
      const { runId, callId } = splitId(message.toolCallId, 'tool call')
      clientToolResults[callId] = { result: resultOf(message.content), ...(typeof message.error === 'string' && { error: message.error }) }
      approvals.push({ runId, callId, approved: true })
      continue
    }
    if (message.role !== 'user') continue
    const content = userContent(message.content)
    if (content.length > 0) input.push({ role: 'user', content })
  }
  if (input.length === 0 && approvals.length === 0)
    throw new AdmissionError('[spindle/ai-sdk] fromRunAgentInput: no new user message, no resume entry and no client tool result; nothing to run')
  if (input.length > 0 && approvals.length > 0)
    throw new AdmissionError('[spindle/ai-sdk] fromRunAgentInput: answer the interrupted run (resume entries, tool results) before sending a new user message')
  const tools = clientTools(runInput.tools)
  const state =
    typeof runInput.state === 'object' && runInput.state !== null && !Array.isArray(runInput.state) ? { ...(runInput.state as Record<string, unknown>) } : {}
  const contextInstructions = (runInput.context ?? []).map((entry) => `${entry.description}: ${entry.value}`).join('\n')
  return {
    sessionId: runInput.threadId,
    input: input.length > 0 ? input : undefined,
    approvals,
    tools,
    state,
    clientToolResults,
    contextInstructions,
    runtimeStore: () => new RuntimeStore({ defaults: { ...state, [clientToolResultsKey]: clientToolResults } }),
    agentWith: (agent) => ({
      ...agent,
      tools: Array.isArray(agent.tools)
        ? [...(agent.tools as readonly Tool[]), ...Object.values(tools)]
        : { ...(agent.tools as Record<string, Tool> | undefined), ...tools },
      ...(contextInstructions && {
        instructions: agent.instructions
          ? `${agent.instructions}\n\nContext from the application:\n${contextInstructions}`
          : `Context from the application:\n${contextInstructions}`,
      }),
    }),
  }
}

function splitId(id: string, what: string): { runId: string; callId: string } {
  const at = typeof id === 'string' ? id.indexOf(interruptIdSeparator) : -1
  if (at <= 0) throw new AdmissionError(`[spindle/ai-sdk] fromRunAgentInput: ${what} "${id}" was not issued by a Spindle run`)
  return { runId: id.slice(0, at), callId: id.slice(at + interruptIdSeparator.length) }
}

function resultOf(content: unknown): unknown {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('')
        : ''
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function userContent(content: unknown): Array<TextPart | FilePart> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  const parts: Array<TextPart | FilePart> = []
  for (const part of content as Array<{ type?: unknown; text?: unknown }>) {
    if (part?.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text })
  }
  return parts
}

// The example's agent: the scripted model and one tool that asks a human before it acts (sending an email).
import { z } from 'zod'
import { Agent, defineTool, type Tool } from '@spindle/core'
import { scriptedChatModel, type ScriptedChatModelOptions } from './scripted-chat-model.js'

/** An email the `send_email` tool "sent" (kept in memory: the example sends nothing for real). */
export interface SentEmail {
  to: string
  subject: string
  body: string
  messageId: string
}

/**
 * `send_email`: needs approval, so the run suspends (`awaiting_approval`) until the user answers in the chat.
 *
 * @example
 * const outbox: SentEmail[] = []
 * const tools = { send_email: sendEmailTool(outbox) }
 */
export function sendEmailTool(outbox: SentEmail[]): Tool<{ to: string; subject: string; body: string }, SentEmail> {
  return defineTool({
    name: 'send_email',
    description: 'Sends an email. The user approves every email before it goes out.',
    inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
    needsApproval: true,
    execute: (input) => {
      const sent = { ...input, messageId: `msg-${outbox.length + 1}` }
      outbox.push(sent)
      return sent
    },
  })
}

/**
 * The chat agent: scripted model, the approval-gated email tool.
 *
 * @example
 * const agent = createChatAgent({ outbox: [], model: { chunkDelayMs: 10 } })
 */
export function createChatAgent(options: { outbox: SentEmail[]; model?: ScriptedChatModelOptions }): Agent {
  return new Agent({
    name: 'react-chat-assistant',
    instructions: 'You are a helpful assistant. Ask before sending anything.',
    model: scriptedChatModel(options.model),
    tools: { send_email: sendEmailTool(options.outbox) },
    policy: { maxSteps: 6 },
  })
}

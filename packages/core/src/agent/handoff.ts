// handoff(agent): a tool that hands the rest of the run to another agent, on the same session and history.
import { z } from 'zod'
import type { AgentSpec } from '../runtime/run-request.js'
import { defineTool } from '../tools/define-tool.js'
import type { Tool } from '../tools/tool.js'
import { sanitizeToolName } from '../tools/tool-name.js'

export { findHandoffTarget } from '../runtime/handoff-target.js'

/** The name and description of a `handoff()` tool (default `transfer_to_<agent>`). */
export interface HandoffOptions {
  /** The name the model calls (default `transfer_to_<agent>`). */
  name?: string
  description?: string
}

const handoffInput = z.object({ reason: z.string().optional().describe('Why the conversation is handed over, for the next agent.') })

/**
 * @example
 * const triage = new Agent({ name: 'triage', model, tools: { transfer_to_billing: handoff(billing) } })
 */
export function handoff(target: AgentSpec, options: HandoffOptions = {}): Tool<z.infer<typeof handoffInput>, { handoff: string; reason?: string }> {
  const tool = defineTool({
    name: options.name ?? sanitizeToolName(`transfer_to_${target.name}`),
    id: `handoff.${target.name}`,
    description: options.description ?? `Hand the conversation over to the agent "${target.name}", which continues it from here.`,
    inputSchema: handoffInput,
    idempotent: true,
    effect: 'read',
    execute: ({ reason }) => ({ handoff: target.name, ...(reason ? { reason } : {}) }),
  })
  return Object.freeze({ ...tool, handoff: target })
}

// The demo's multi-agent part: a researcher sub-agent called as a tool (`asTool`, a nested sub-run) and an
// accountant the conversation can be handed over to (`handoff`), both on the scripted demo model.
import { Agent, handoff, type Tool } from '@spindle/core'
import { demoModelId } from './demo-model.js'
import { calculatorTool } from './demo-tools.js'

/** Answers a delegated question in a sub-run of its own, with the calculator. */
export const researcherAgent = new Agent({
  name: 'researcher',
  description: 'Looks a question up in a sub-run of its own (with the calculator) and reports back',
  instructions: 'You are the researcher. Answer the delegated question briefly; use the calculator for arithmetic.',
  model: demoModelId,
  tools: { calculator: calculatorTool },
})

/** Takes the conversation over when asked to (a handoff: same run, same session, another agent). */
export const accountantAgent = new Agent({
  name: 'accountant',
  description: 'Continues the conversation when it is handed over, with the calculator',
  instructions: 'You are the accountant. Check sums with the calculator.',
  model: demoModelId,
  tools: { calculator: calculatorTool },
})

/** The tools that reach the sub-agents, keyed by the names the demo model calls. */
export function demoSubAgentTools(): Record<string, Tool> {
  return {
    ask_researcher: researcherAgent.asTool({
      name: 'ask_researcher',
      description: 'Delegates a question to the researcher agent (a sub-run) and returns its answer',
    }) as Tool,
    transfer_to_accountant: handoff(accountantAgent) as Tool,
  }
}

/** The sub-agents, for the agents panel. */
export const demoSubAgents: readonly Agent[] = [researcherAgent, accountantAgent]

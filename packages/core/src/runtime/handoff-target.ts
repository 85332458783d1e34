// Where a handoff took a run: the agent of that name among the handoff targets reachable from the run's first agent.
import type { Tool } from '../tools/tool.js'
import type { AgentSpec } from './run-request.js'

/** Finds an agent by name among the handoff targets reachable from `agent` (breadth first). */
export function findHandoffTarget(agent: AgentSpec, name: string): AgentSpec | undefined {
  const seen = new Set<AgentSpec>([agent])
  const queue: AgentSpec[] = [agent]
  while (queue.length) {
    const current = queue.shift()!
    if (current.name === name) return current
    const tools = current.tools ? (Array.isArray(current.tools) ? current.tools : Object.values(current.tools)) : []
    for (const tool of tools as Tool[]) {
      const target = tool.handoff as AgentSpec | undefined
      if (target && !seen.has(target)) {
        seen.add(target)
        queue.push(target)
      }
    }
  }
  return undefined
}

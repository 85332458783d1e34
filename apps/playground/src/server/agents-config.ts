// What `GET /api/agents` answers: the agents, their instructions and tools (schemas, effect classes, approval),
// the runtime's policy limits, the stores and the providers. Built from names and settings only: never a key,
// a token or a connection string (the agents-config test checks it against a server given secrets).
import { type AgentSpec, type RuntimePolicy, type Tool, toolEntries, toolInputJsonSchema } from '@spindle/core'
import { demoSubAgents } from '../demo/demo-sub-agents.js'
import type { Spindle } from './compose-spindle.js'

export interface ToolView {
  name: string
  id?: string
  description: string
  effect: string
  idempotent: boolean
  /** `always`, `never`, or `per call` (a function decides). */
  approval: 'always' | 'never' | 'per call'
  /** The agent this tool starts as a sub-run (`asTool`) or hands over to (`handoff`). */
  agent?: { name: string; kind: 'sub-run' | 'handoff' }
  inputSchema: unknown
}

export interface AgentView {
  name: string
  role: 'main' | 'sub-agent'
  description?: string
  instructions?: string
  model: string
  tools: ToolView[]
}

export interface AgentsConfigView {
  agents: AgentView[]
  policy: Record<string, unknown>
  store: { kind: 'sqlite' | 'postgres'; schema?: string }
  providers: Array<{ id: string; label: string; provider: string; demo: boolean; pricing?: { input: number; output: number; note?: string } }>
}

export function toolView(name: string, tool: Tool): ToolView {
  const handoffTarget = tool.handoff as AgentSpec | undefined
  const subAgent = tool.id?.startsWith('agent.') ? tool.id.slice('agent.'.length) : undefined
  const approval = typeof tool.needsApproval === 'function' ? 'per call' : tool.needsApproval ? 'always' : 'never'
  return {
    name,
    ...(tool.id && tool.id !== name ? { id: tool.id } : {}),
    description: tool.description,
    effect: tool.effect,
    idempotent: tool.idempotent,
    approval,
    ...(handoffTarget
      ? { agent: { name: handoffTarget.name, kind: 'handoff' as const } }
      : subAgent
        ? { agent: { name: subAgent, kind: 'sub-run' as const } }
        : {}),
    inputSchema: toolInputJsonSchema(tool),
  }
}

/** The policy's limits; a function (a `requireApproval` predicate) is shown as such, not run or serialized. */
function policyView(policy: RuntimePolicy): Record<string, unknown> {
  return JSON.parse(JSON.stringify(policy, (_key, value: unknown) => (typeof value === 'function' ? '(a function)' : value))) as Record<string, unknown>
}

export function agentsConfig(spindle: Spindle, options: { databaseSchema?: string } = {}): AgentsConfigView {
  const main = spindle.agentFor(spindle.models[0]!.id)
  const agent = (spec: AgentSpec, role: AgentView['role']): AgentView => ({
    name: spec.name,
    role,
    ...((spec as { description?: string }).description ? { description: (spec as { description?: string }).description } : {}),
    ...(spec.instructions ? { instructions: spec.instructions } : {}),
    model: typeof spec.model === 'string' ? spec.model : role === 'main' ? 'picked per message' : 'a model object',
    tools: toolEntries(spec.tools).map(([name, tool]) => toolView(name, tool)),
  })
  return {
    agents: [{ ...agent(main, 'main'), model: 'the model picked in the header' }, ...demoSubAgents.map((sub) => agent(sub, 'sub-agent'))],
    policy: policyView(spindle.runtime.policy),
    store: { kind: spindle.storeKind, ...(spindle.storeKind === 'postgres' && options.databaseSchema ? { schema: options.databaseSchema } : {}) },
    providers: spindle.models.map((model) => ({
      id: model.id,
      label: model.label,
      provider: model.id.split(':')[0]!,
      demo: model.demo,
      ...(model.pricing ? { pricing: model.pricing } : {}),
    })),
  }
}

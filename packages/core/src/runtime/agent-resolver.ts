// How the runtime turns an agent spec into what a run executes with: its model (from the provider registry), its
// tool scope (its tools over the registry, plus `read_artifact`) and its policy; and an agent rebuilt from a run
// record after a restart. A run's execution uses it for handoff targets.
import { AbortedError, ConfigurationError } from '../errors/errors.js'
import type { Extensions } from '../extensions/extensions.js'
import { mergePolicy, type RuntimePolicy } from '../policy/runtime-policy.js'
import type { ProviderRegistry } from '../providers/provider-registry.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { RunRecord } from '../spec/run-store.js'
import { toolEntries } from '../tools/tool-registry.js'
import type { ToolRuntime } from '../tools/tool-runtime.js'
import type { ToolScope } from '../tools/tool-scope.js'
import type { Tool } from '../tools/tool.js'
import type { HandoffResolver, ResolvedAgent } from './run-context.js'
import type { AgentSpec, ModelReference } from './run-request.js'

/** Resolves agent specs into the model, tool scope and policy a run executes with. */
export class AgentResolver implements HandoffResolver {
  readonly #extensions: Extensions
  readonly #policy: RuntimePolicy
  readonly #tools: ToolRuntime
  readonly #readArtifact: Tool | undefined

  constructor(extensions: Extensions, policy: RuntimePolicy, tools: ToolRuntime, readArtifact: Tool | undefined) {
    this.#extensions = extensions
    this.#policy = policy
    this.#tools = tools
    this.#readArtifact = readArtifact
  }

  /** The agent's model, tool scope and policy (the runtime's policy with the agent's over it). */
  resolve(agent: AgentSpec): Required<ResolvedAgent> {
    return { model: this.model(agent.model), scope: this.scope(agent.tools), policy: this.policy(agent) }
  }

  policy(agent: AgentSpec | undefined): RuntimePolicy {
    return mergePolicy(this.#policy, agent?.policy)
  }

  model(reference: ModelReference): LanguageModel {
    return this.#extensions.providers.languageModel(reference as Parameters<ProviderRegistry['languageModel']>[0])
  }

  /** A run's tool scope: its tools over the registry, plus `read_artifact` when the run has tools and none is defined. */
  scope(tools: AgentSpec['tools']): ToolScope {
    const entries = toolEntries(tools)
    const registry = this.#extensions.tools
    if (
      this.#readArtifact &&
      (entries.length > 0 || registry.size > 0) &&
      !registry.get('read_artifact') &&
      !entries.some(([name]) => name === 'read_artifact')
    ) {
      // Truncated tool output names this tool: the model can read the whole output back by ranges.
      entries.push(['read_artifact', this.#readArtifact])
    }
    return this.#tools.scope(entries)
  }

  /** Rebuilds an agent after a restart from the run record: its model id and tools from the registries. */
  fromRecord(run: RunRecord): AgentSpec {
    const agent = (run.request.agent ?? {}) as { name?: string; instructions?: string; model?: string; tools?: string[] }
    const tools: Record<string, Tool> = {}
    const missing: string[] = []
    for (const name of agent.tools ?? []) {
      const tool = this.#extensions.tools.get(name)
      if (tool) tools[name] = tool
      else missing.push(name)
    }
    if (missing.length || !agent.model || !this.#extensions.providers.has(agent.model)) {
      throw new ConfigurationError(
        `[spindle/core] cannot rebuild agent "${agent.name}" of run "${run.id}" after a restart: ${missing.length ? `tools ${missing.join(', ')} are not in the tool registry` : `model "${agent.model}" is not in the provider registry`}. Pass it again: runtime.resume(runId, { agent })`,
      )
    }
    return { name: agent.name ?? 'agent', instructions: agent.instructions, model: agent.model, tools }
  }

  /**
   * The agent of a run being cancelled: its own when it can be rebuilt, else a stand-in. A cancel never calls the
   * model or a tool (it closes the open calls with error results), so a process without the run's model or tools
   * registered can still cancel it.
   */
  toCancel(run: RunRecord): AgentSpec {
    try {
      return this.fromRecord(run)
    } catch {
      const name = (run.request.agent as { name?: string } | undefined)?.name ?? 'agent'
      return { name, model: cancelledModel(run.id) }
    }
  }
}

/** The model of a run resumed only to be cancelled: never called (the run is aborted before its first step). */
function cancelledModel(runId: string): LanguageModel {
  return {
    specificationVersion: 'v1',
    provider: 'spindle',
    modelId: 'cancelled',
    capabilities: { contextWindow: 1_000_000, maxOutputTokens: 1, tools: true, parallelTools: true, reasoning: false, structuredOutput: false },
    stream() {
      throw new AbortedError(`[spindle/core] run "${runId}" was cancelled`)
    },
  }
}

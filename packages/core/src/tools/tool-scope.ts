// A ToolScope layers per-run tools on top of the registry; the specs sent to the model are computed once.
import type { ToolSpecification } from '../spec/language-model.js'
import { toolInputJsonSchema } from './define-tool.js'
import type { Tool } from './tool.js'
import type { ToolRegistry } from './tool-registry.js'
import { assertToolName } from './tool-name.js'

/** A runtime policy's tool lists (`policy.tools`). */
export interface ToolPolicyLists {
  allow?: readonly string[]
  deny: readonly string[]
}

/** Whether the policy lets the tool named `name` (its id `id`) run: not denied, and allowed when there is an allow list. */
export function isToolAllowed(lists: ToolPolicyLists, name: string, id: string): boolean {
  const { allow, deny } = lists
  return !deny.includes(name) && !deny.includes(id) && (!allow || allow.includes(name) || allow.includes(id))
}

/**
 * The tools one run may use, by model-facing name: the agent's tools filtered by the policy's allow and deny lists.
 * `new ToolScope(…)` returns one literal with every field and the methods below as its own properties, as the runtime
 * builds every run's (`toolScope()`): a class instance's hidden class dies at a full GC when no run is alive, and the
 * code compiled against it with it (see util/fast-path.ts).
 */
export class ToolScope {
  /** How many tools the scope holds. */
  declare readonly size: number
  /** The tools by model-facing name. */
  declare readonly tools: Map<string, Tool>
  /** The specs of every tool, once asked for. */
  declare specList: ToolSpecification[] | undefined
  /** The specs offered under the last policy lists asked for (a run's lists rarely change: a handoff). */
  declare lastOffered: { lists: ToolPolicyLists; specs: ToolSpecification[] } | undefined

  /** `runTools` shadow the registry's tools of the same name; `registryNames` limits which registry tools are visible (all when undefined). */
  constructor(registry: ToolRegistry | undefined, runTools: Array<[string, Tool]>, registryNames?: readonly string[]) {
    return toolScope(registry, runTools, registryNames)
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name)
  }

  names(): string[] {
    return [...this.tools.keys()]
  }

  /** The tool list for the model request (stable array, so token counts can be cached by identity). */
  specs(): ToolSpecification[] {
    if (!this.specList) {
      this.specList = [...this.tools].map(([name, tool]) => specOf(name, tool))
    }
    return this.specList
  }

  /** The tool list for the model request under a policy: the tools it would refuse to run are not offered. */
  offered(lists: ToolPolicyLists): ToolSpecification[] {
    const all = this.specs()
    if (!lists.allow && lists.deny.length === 0) return all
    if (this.lastOffered?.lists === lists) return this.lastOffered.specs
    const specs = all.filter((spec) => isToolAllowed(lists, spec.name, this.tools.get(spec.name)!.id))
    this.lastOffered = { lists, specs: specs.length === all.length ? all : specs }
    return this.lastOffered.specs
  }
}

const methods = ToolScope.prototype

/** A run's tool scope (what `new ToolScope(…)` returns): `runTools` shadow the registry's tools of the same name. */
export function toolScope(registry: ToolRegistry | undefined, runTools: Array<[string, Tool]>, registryNames?: readonly string[]): ToolScope {
  const tools = new Map<string, Tool>()
  if (registry) {
    if (registryNames) {
      for (const name of registryNames) {
        const tool = registry.get(name)
        if (tool) tools.set(name, tool)
      }
    } else for (const [name, tool] of registry.entries()) tools.set(name, tool)
  }
  for (const [name, tool] of runTools) {
    assertToolName(name)
    tools.set(name, tool)
  }
  return {
    size: tools.size,
    tools,
    specList: undefined,
    lastOffered: undefined,
    get: methods.get,
    names: methods.names,
    specs: methods.specs,
    offered: methods.offered,
  }
}

/** One spec object per tool and name, shared by every run: its token count is then cached once (by identity). */
const specCache = new WeakMap<Tool, Map<string, ToolSpecification>>()

function specOf(name: string, tool: Tool): ToolSpecification {
  let byName = specCache.get(tool)
  if (!byName) specCache.set(tool, (byName = new Map()))
  let spec = byName.get(name)
  if (!spec) byName.set(name, (spec = { name, description: tool.description, inputSchema: toolInputJsonSchema(tool) }))
  return spec
}

// A ToolScope layers per-run tools on top of the registry; the specs sent to the model are computed once.
import type { ToolSpecification } from '../spec/language-model.js'
import { toolInputJsonSchema } from './define-tool.js'
import type { Tool } from './tool.js'
import type { ToolRegistry } from './tool-registry.js'
import { assertToolName } from './tool-name.js'

export class ToolScope {
  readonly #tools = new Map<string, Tool>()
  #specs: ToolSpecification[] | undefined

  /** `runTools` shadow the registry's tools of the same name; `registryNames` limits which registry tools are visible (all when undefined). */
  constructor(registry: ToolRegistry | undefined, runTools: Array<[string, Tool]>, registryNames?: readonly string[]) {
    if (registry) {
      if (registryNames) {
        for (const name of registryNames) {
          const tool = registry.get(name)
          if (tool) this.#tools.set(name, tool)
        }
      } else for (const [name, tool] of registry.entries()) this.#tools.set(name, tool)
    }
    for (const [name, tool] of runTools) {
      assertToolName(name)
      this.#tools.set(name, tool)
    }
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name)
  }

  names(): string[] {
    return [...this.#tools.keys()]
  }

  get size(): number {
    return this.#tools.size
  }

  /** The tool list for the model request (stable array, so token counts can be cached by identity). */
  specs(): ToolSpecification[] {
    if (!this.#specs) {
      this.#specs = [...this.#tools].map(([name, tool]) => specOf(name, tool))
    }
    return this.#specs
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

/** Keeps ToolScope's hidden classes alive between runs, a scope being per run (see `runExecutionShapeKeeper`). */
export const toolScopeShapeKeeper = new ToolScope(undefined, [])

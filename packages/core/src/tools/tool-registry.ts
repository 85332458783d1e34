// Holds tools by the name the model sees.
import { DuplicateError, NotFoundError } from '../errors/errors.js'
import type { Tool, ToolSet } from './tool.js'
import { assertToolInputSchema } from './assert-tool-input-schema.js'
import { assertToolName } from './tool-name.js'

/** The registry of tools available by name (`extensions.tools`), checked against the provider-safe name pattern. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>()

  /** Registers under `name` (default: the tool's own name); fails on a duplicate. */
  register(tool: Tool, name: string = tool.name): this {
    assertToolName(name)
    assertToolInputSchema(tool.inputSchema, name)
    if (this.#tools.has(name)) throw new DuplicateError(`[spindle/core] a tool named "${name}" is already registered`)
    this.#tools.set(name, tool)
    return this
  }

  registerAll(tools: ToolSet): this {
    for (const [name, tool] of toolEntries(tools)) this.register(tool, name)
    return this
  }

  replace(tool: Tool, name: string = tool.name): this {
    assertToolName(name)
    this.#tools.set(name, tool)
    return this
  }

  unregister(name: string): boolean {
    return this.#tools.delete(name)
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name)
  }

  require(name: string): Tool {
    const tool = this.#tools.get(name)
    if (!tool) throw new NotFoundError(`[spindle/core] no tool named "${name}". Registered tools: ${this.names().join(', ') || '(none)'}`)
    return tool
  }

  names(): string[] {
    return [...this.#tools.keys()]
  }

  entries(): IterableIterator<[string, Tool]> {
    return this.#tools.entries()
  }

  get size(): number {
    return this.#tools.size
  }
}

/** Normalizes a `tools` option (object keyed by model-facing name, or array) into `[name, tool]` pairs. */
export function toolEntries(tools: ToolSet | undefined): Array<[string, Tool]> {
  if (!tools) return []
  if (Array.isArray(tools)) return (tools as readonly Tool[]).map((tool) => [tool.name, tool])
  return Object.entries(tools as Record<string, Tool>)
}

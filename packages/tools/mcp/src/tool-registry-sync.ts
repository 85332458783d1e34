// Keeps the tools of one MCP server current in the tool registries it was set up in as a plugin: a change the
// server announces (or a restart) adds, replaces and removes the registry entries this server put there.
import { DuplicateError, type Tool, type ToolRegistry } from '@spindle/core'

export class ToolRegistrySync {
  /** Each registry, with the names this server registered there (a name someone else holds is never touched). */
  readonly #registries = new Map<ToolRegistry, Set<string>>()

  constructor(private readonly serverName: string) {}

  /** Registers every tool; fails without registering any when a name is already taken. */
  add(registry: ToolRegistry, tools: Record<string, Tool>): void {
    const taken = Object.keys(tools).filter((name) => registry.get(name) !== undefined)
    if (taken.length > 0) {
      throw new DuplicateError(
        `[spindle/tools-mcp] MCP server "${this.serverName}" cannot register ${taken.map((name) => `"${name}"`).join(', ')}: already registered; give the server another name`,
      )
    }
    const owned = new Set<string>()
    for (const [name, tool] of Object.entries(tools)) {
      registry.register(tool, name)
      owned.add(name)
    }
    this.#registries.set(registry, owned)
  }

  /** Brings every registry in line with the server's current tools. */
  update(tools: Record<string, Tool>): void {
    for (const [registry, owned] of this.#registries) {
      for (const name of owned) {
        if (Object.hasOwn(tools, name)) continue
        registry.unregister(name)
        owned.delete(name)
      }
      for (const [name, tool] of Object.entries(tools)) {
        if (owned.has(name)) registry.replace(tool, name)
        else if (registry.get(name) === undefined) {
          registry.register(tool, name)
          owned.add(name)
        }
      }
    }
  }
}

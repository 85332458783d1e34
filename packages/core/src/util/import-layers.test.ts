// The layers of core, checked over its import graph: no two folders of packages/core/src may depend on each other,
// directly or through others (spec/ ← util/ ← the rest ← runtime/; type-only imports count too). Every relative
// `import … from`, `export … from` and `import()` of a non-test source file is an edge between the folders of the
// two files.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

function sourceFiles(directory: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(path))
    else if (entry.name.endsWith('.ts') && !/\.(test|test-d|bench)\.ts$/.test(entry.name)) files.push(path)
  }
  return files
}

/** The top-level folder of a file under src (`.` for src itself: the entry points, which import everything). */
function folderOf(file: string): string {
  const parts = relative(root, file).split('/')
  return parts.length === 1 ? '.' : parts[0]!
}

const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g

/** Folder → the folders it imports from, each with one file import that makes the edge (for the message). */
function folderGraph(files: string[]): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>()
  for (const file of files) {
    const from = folderOf(file)
    if (from === '.') continue
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = (match[1] ?? match[2])!
      const to = folderOf(resolve(dirname(file), specifier))
      if (to === from) continue
      const edges = graph.get(from) ?? new Map<string, string>()
      if (!edges.has(to)) edges.set(to, `${relative(root, file)} imports ${specifier}`)
      graph.set(from, edges)
    }
  }
  return graph
}

/** The folder cycles: each strongly connected group of two or more folders (Tarjan), with the edges inside it. */
function folderCycles(graph: Map<string, Map<string, string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  let counter = 0
  const visit = (folder: string): void => {
    index.set(folder, counter)
    low.set(folder, counter++)
    stack.push(folder)
    onStack.add(folder)
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(folder, Math.min(low.get(folder)!, index.get(next)!))
    }
    if (low.get(folder) !== index.get(folder)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== folder)
    if (group.length < 2) return
    const members = new Set(group)
    const edges: string[] = []
    for (const from of group) for (const [to, why] of graph.get(from) ?? []) if (members.has(to)) edges.push(`${from} → ${to} (${why})`)
    cycles.push(edges.sort())
  }
  for (const folder of graph.keys()) if (!index.has(folder)) visit(folder)
  return cycles
}

describe('the layers of core', () => {
  const graph = folderGraph(sourceFiles(root))

  it('no folder of packages/core/src imports, directly or not, a folder that imports it', () => {
    expect(folderCycles(graph)).toEqual([])
  })

  it('spec/ imports no other folder, util/ only spec/, and nothing but the entry points and agent/ imports runtime/', () => {
    expect([...(graph.get('spec')?.keys() ?? [])]).toEqual([])
    expect([...(graph.get('util')?.keys() ?? [])].filter((folder) => folder !== 'spec')).toEqual([])
    const intoRuntime = [...graph]
      .filter(([from, edges]) => edges.has('runtime') && from !== 'agent' && from !== 'plugin-kit')
      .map(([, edges]) => edges.get('runtime'))
    expect(intoRuntime).toEqual([])
  })

  it('finds a cycle when there is one (the check can fail)', () => {
    const withCycle = new Map([...graph].map(([from, edges]) => [from, new Map(edges)]))
    withCycle.set('spec', new Map([...(withCycle.get('spec') ?? []), ['runtime', 'spec/x.ts imports ../runtime/y.js']]))
    const cycles = folderCycles(withCycle)
    expect(cycles).toHaveLength(1)
    expect(cycles[0]).toContain('spec → runtime (spec/x.ts imports ../runtime/y.js)')
  })
})

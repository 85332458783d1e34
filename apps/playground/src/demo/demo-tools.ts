// The demo tools: a calculator and notes written here, a gated delete, and the real file and code tools.
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigurationError, defineTool, type Tool } from '@spindle/core'
import { codeTool } from '@spindle/tools-code'
import { deleteConfined, fileToolSet } from '@spindle/tools-fs'
import { z } from 'zod'
import { evaluateExpression } from './calculator.js'
import { runtimeStateTool } from './runtime-state-tool.js'

export const calculatorTool = defineTool({
  name: 'calculator',
  description: 'Evaluates an arithmetic expression (+ - * / % ^ and parentheses) exactly',
  inputSchema: z.object({ expression: z.string().min(1).max(500) }),
  idempotent: true,
  effect: 'read',
  execute: ({ expression }) => ({ expression, value: evaluateExpression(expression) }),
})

interface Note {
  id: number
  text: string
  createdAt: number
}

/** Notes kept in one JSON file; saving is a write (journaled, not re-run on resume). */
export function notesTool(file: string): Tool {
  const load = async (): Promise<Note[]> => (existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Note[]) : [])
  return defineTool({
    name: 'notes',
    description: 'Saves a short note, or lists the saved notes',
    inputSchema: z.object({ action: z.enum(['save', 'list']), text: z.string().max(2000).optional() }),
    effect: 'write',
    execute: async ({ action, text }) => {
      const notes = await load()
      if (action === 'list') return { notes }
      if (!text) throw new Error('saving a note needs its text')
      const note = { id: (notes.at(-1)?.id ?? 0) + 1, text, createdAt: Date.now() }
      await writeFile(file, JSON.stringify([...notes, note], null, 2))
      return { saved: note, count: notes.length + 1 }
    },
  })
}

/** Deletes a file in the sandbox, after a human approves. `root` must exist. */
export function deleteFileTool(root: string): Tool {
  // A root reached through a symbolic link (a linked data folder) is resolved first, as the file tools do with theirs.
  const realRoot = realRootOf(root)
  return defineTool({
    name: 'delete_file',
    description: 'Deletes a file in the sandbox folder (asks a human first)',
    inputSchema: z.object({ path: z.string().min(1) }),
    effect: 'irreversible',
    needsApproval: true,
    execute: async ({ path }) => {
      // Checked, then unlinked through its pinned parent directory: a swap in between cannot redirect it outside.
      const result = await deleteConfined(realRoot, path)
      return result.deleted ? result : { ...result, reason: 'no such file' }
    },
  })
}

function realRootOf(root: string): string {
  try {
    return realpathSync(root)
  } catch (error) {
    throw new ConfigurationError(`[spindle/playground] the sandbox folder "${root}" does not exist; create it before building the delete tool`, {
      cause: error,
    })
  }
}

/** Every demo tool, keyed by the name the model sees. Creates the sandbox with two sample files. */
export function demoTools(options: { sandbox: string; notesFile: string }): Record<string, Tool> {
  mkdirSync(options.sandbox, { recursive: true })
  const readme = join(options.sandbox, 'README.md')
  if (!existsSync(readme)) writeFileSync(readme, '# Sandbox\n\nThe demo agent may read and (with your approval) write files here.\n')
  const todo = join(options.sandbox, 'todo.txt')
  if (!existsSync(todo)) writeFileSync(todo, 'buy milk\nwrite the report\n')
  return {
    calculator: calculatorTool,
    notes: notesTool(options.notesFile),
    ...fileToolSet({ root: options.sandbox }),
    delete_file: deleteFileTool(options.sandbox),
    run_code: codeTool({ timeLimitMs: 2000 }),
    runtime_state: runtimeStateTool,
  }
}

// Tools the core tests share.
import { z } from 'zod'
import { defineTool } from '../tools/define-tool.js'

/** A `del` tool that needs approval and records each file it deletes in `ran`. */
export function deleter(ran: string[]) {
  return defineTool({
    name: 'del',
    description: 'deletes a file',
    inputSchema: z.object({ file: z.string() }),
    needsApproval: true,
    execute: ({ file }) => {
      ran.push(file)
      return `deleted ${file}`
    },
  })
}

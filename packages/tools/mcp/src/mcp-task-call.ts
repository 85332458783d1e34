// Task-based execution (MCP 2025-11-25, `execution.taskSupport: "required"`): the call creates a task, which is
// polled until it ends; its status messages are reported as progress, and a cancelled call cancels the task.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { untilAborted } from '@spindle/core/plugin-kit'

/** One progress report of a call: MCP `notifications/progress`, or a task's status. */
export interface McpProgressUpdate {
  /** Progress so far (increases with each report), when the server sent a number. */
  progress?: number
  /** The total the progress counts towards, when known. */
  total?: number
  /** A human-readable status, when the server sent one. */
  message?: string
  /** For a task-based call: the task's status (`working`, `input_required`, …). */
  taskStatus?: string
}

export interface TaskCallOptions {
  signal: AbortSignal
  /** Time limit of each request of the task (create, status polls, result). */
  timeoutMs: number
  /** How long the server keeps the task (its `ttl`). */
  ttlMs: number
  onProgress?: (update: McpProgressUpdate) => void
}

/** Calls a tool as a task and returns its CallToolResult; throws the SDK's error, or the signal's reason once aborted. */
export async function callToolAsTask(client: Client, toolName: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<unknown> {
  const { signal } = options
  const stream = client.experimental.tasks.callToolStream({ name: toolName, arguments: args }, CallToolResultSchema, {
    signal,
    timeout: options.timeoutMs,
    task: { ttl: options.ttlMs },
  })
  const iterator = stream[Symbol.asyncIterator]()
  let taskId: string | undefined
  try {
    for (;;) {
      // The SDK sleeps between polls without watching the signal: the wait ends on abort here.
      const next = await untilAborted(iterator.next(), signal)
      if (next.done) throw new Error(`the task of the tool "${toolName}" ended without a result`)
      const message = next.value
      switch (message.type) {
        case 'taskCreated':
          taskId = message.task.taskId
          break
        case 'taskStatus': {
          const update: McpProgressUpdate = { taskStatus: message.task.status }
          if (message.task.statusMessage) update.message = message.task.statusMessage
          options.onProgress?.(update)
          break
        }
        case 'result':
          return message.result
        case 'error':
          throw message.error
      }
    }
  } catch (error) {
    if (signal.aborted) {
      void iterator.return?.(undefined)?.catch(() => {})
      // Stops the work on the server; its answer does not matter any more.
      if (taskId !== undefined) void client.experimental.tasks.cancelTask(taskId).catch(() => {})
      throw signal.reason
    }
    throw error
  }
}

/** A `notifications/progress` report as a progress update (only the fields the server sent). */
export function progressUpdate(progress: { progress: number; total?: number; message?: string }): McpProgressUpdate {
  const update: McpProgressUpdate = { progress: progress.progress }
  if (progress.total !== undefined) update.total = progress.total
  if (progress.message !== undefined) update.message = progress.message
  return update
}

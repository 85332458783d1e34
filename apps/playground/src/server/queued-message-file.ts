// The messages taken but not started yet, kept in a small JSON file of the data folder: a server that stops or
// crashes while messages wait finds them there when it starts again, instead of dropping them.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'

export interface SavedQueuedMessage {
  sessionId: string
  ticket: string
  text: string
  model: string
  queuedAt: number
}

const savedSchema = z.array(z.object({ sessionId: z.string(), ticket: z.string(), text: z.string(), model: z.string(), queuedAt: z.number() }))

export interface QueuedMessageFile {
  /** The messages saved, oldest first; none when the file is absent or unreadable (its problem is reported). */
  load(): SavedQueuedMessage[]
  /** Replaces the saved list (written to a temporary file, then renamed: a crash never leaves half a file). */
  save(messages: SavedQueuedMessage[]): void
}

export function queuedMessageFile(path: string, onError: (message: string) => void = console.error): QueuedMessageFile {
  return {
    load() {
      let text: string
      try {
        text = readFileSync(path, 'utf8')
      } catch {
        return []
      }
      const parsed = savedSchema.safeParse(safeJson(text))
      if (parsed.success) return parsed.data
      onError(`[spindle/playground] ${path} does not hold a list of queued messages; they are not restored (delete the file to silence this)`)
      return []
    },
    save(messages) {
      try {
        if (!messages.length) return rmSync(path, { force: true })
        mkdirSync(dirname(path), { recursive: true })
        const temporary = `${path}.tmp`
        writeFileSync(temporary, JSON.stringify(messages))
        renameSync(temporary, path)
      } catch (error) {
        onError(
          `[spindle/playground] the queued messages could not be saved to ${path} (they would not survive a restart): ${error instanceof Error ? error.message : String(error)}`,
        )
      }
    },
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

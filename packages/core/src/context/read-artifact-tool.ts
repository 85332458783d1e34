// read_artifact: the built-in tool that lets the model read back a byte or line range of an artifact
// (e.g. a tool output that was too large for the context and was kept whole in the ArtifactStore).
import { z } from 'zod'
import { NotFoundError } from '../errors/errors.js'
import type { ArtifactRecord, ArtifactStore } from '../spec/artifact-store.js'
import { readArtifactBytes } from '../stores/artifact-bytes.js'
import { defineTool } from '../tools/define-tool.js'
import type { Tool } from '../tools/tool.js'

/** Options of `readArtifactTool()`: the tool's name and how much it returns per call. */
export interface ReadArtifactToolOptions {
  /** The name the model sees (default `read_artifact`, the name the truncation marker mentions). */
  name?: string
  /** Largest slice returned by one call, in bytes (default 8,000). */
  maxBytes?: number
  /** Most lines returned by one call in line mode (default 200). */
  maxLines?: number
  /** The store to read from; by default the run's own ArtifactStore (from the tool context). */
  artifacts?: ArtifactStore
}

/** The arguments of `read_artifact`: the artifact id and the range to read. */
export interface ReadArtifactInput {
  id: string
  start?: number
  end?: number
  startLine?: number
  endLine?: number
}

const inputSchema = z
  .object({
    id: z.string().min(1).describe('The artifact id (a sha-256 hex string), as named in a truncation marker.'),
    start: z.number().int().nonnegative().optional().describe('First byte to read (0-based). Byte mode is the default.'),
    end: z.number().int().positive().optional().describe('Byte after the last one to read (exclusive).'),
    startLine: z.number().int().positive().optional().describe('First line to read (1-based); selects line mode.'),
    endLine: z.number().int().positive().optional().describe('Last line to read (inclusive).'),
  })
  .strict()

/**
 * A tool that reads a bounded byte or line range of an artifact and says where the slice sits in the whole.
 * Add it to an agent's tools (or `extensions.tools.register(readArtifactTool())`) so the model can follow the
 * truncation markers of oversized tool outputs.
 *
 * @example
 * const runtime = new AgentRuntime(new Extensions())
 * await runtime.run({ agent: { name: 'a', model, tools: { search, read_artifact: readArtifactTool() } }, input })
 */
export function readArtifactTool(options: ReadArtifactToolOptions = {}): Tool<ReadArtifactInput, string> {
  const maxBytes = Math.max(64, Math.floor(options.maxBytes ?? 8_000))
  const maxLines = Math.max(1, Math.floor(options.maxLines ?? 200))
  return defineTool({
    name: options.name ?? 'read_artifact',
    description:
      `Reads part of a stored artifact, such as the full output of a tool call that was truncated in the conversation. ` +
      `Give a byte range (start, end) or a line range (startLine, endLine); at most ${maxBytes} bytes or ${maxLines} lines are returned per call. ` +
      `The answer names the range returned and the artifact's total size, so you can ask for the next range.`,
    inputSchema,
    idempotent: true,
    effect: 'read',
    // The slice plus its header must never be truncated into a new artifact.
    maxOutputBytes: maxBytes + 1_024,
    async execute(input, context) {
      const store = options.artifacts ?? context.artifacts
      const record = await store.head(input.id)
      if (!record) throw new NotFoundError(`[spindle/core] read_artifact: no artifact "${input.id}". Use the id exactly as the truncation marker gives it.`)
      if (input.startLine !== undefined || input.endLine !== undefined) return readLines(store, record, input, maxBytes, maxLines, context.signal)
      return readBytes(store, record, input, maxBytes)
    },
  })
}

async function readBytes(store: ArtifactStore, record: ArtifactRecord, input: ReadArtifactInput, maxBytes: number): Promise<string> {
  const start = Math.min(record.size, input.start ?? 0)
  const end = Math.min(record.size, input.end ?? record.size, start + maxBytes)
  const bytes = await readArtifactBytes(store, record.id, { start, end })
  // Whole characters only: a cut inside a UTF-8 sequence is moved back to the character's start.
  const { text, length } = decodeWhole(bytes, end < record.size)
  const last = start + length
  const header = `[artifact ${record.id} (${record.mediaType}, ${record.size} bytes): bytes ${start}-${last} of ${record.size}]`
  const more = last < record.size ? `\n[more: read_artifact with start=${last}]` : '\n[end of artifact]'
  return `${header}\n${text}${more}`
}

async function readLines(
  store: ArtifactStore,
  record: ArtifactRecord,
  input: ReadArtifactInput,
  maxBytes: number,
  maxLines: number,
  signal: AbortSignal,
): Promise<string> {
  const firstLine = input.startLine ?? 1
  const lastLine = Math.min(input.endLine ?? firstLine + maxLines - 1, firstLine + maxLines - 1)
  const decoder = new TextDecoder()
  const lines: string[] = []
  let line = 1
  let current = ''
  let bytesTaken = 0
  let cutShort = false
  let reachedEnd = true
  // Streams the artifact and stops as soon as the range is complete: memory stays bounded by the slice.
  outer: for await (const chunk of store.read(record.id)) {
    if (signal.aborted) throw signal.reason
    const text = decoder.decode(chunk, { stream: true })
    let from = 0
    for (;;) {
      const newline = text.indexOf('\n', from)
      const piece = newline === -1 ? text.slice(from) : text.slice(from, newline)
      if (line >= firstLine && line <= lastLine && current.length <= maxBytes) current += piece
      if (newline === -1) break
      if (line >= firstLine && line <= lastLine) {
        bytesTaken += Buffer.byteLength(current) + 1
        if (bytesTaken > maxBytes && lines.length) {
          cutShort = true
          reachedEnd = false
          break outer
        }
        lines.push(current)
      }
      current = ''
      line++
      from = newline + 1
      if (line > lastLine) {
        reachedEnd = false
        break outer
      }
    }
  }
  if (reachedEnd && line >= firstLine && line <= lastLine && current) lines.push(current + decoder.decode())
  const returnedLast = firstLine + lines.length - 1
  const range = lines.length ? `lines ${firstLine}-${returnedLast}` : `no lines (the artifact has ${line} line(s))`
  const header = `[artifact ${record.id} (${record.mediaType}, ${record.size} bytes): ${range}]`
  const body = lines.join('\n')
  if (Buffer.byteLength(body) > maxBytes) {
    // One line longer than a whole slice: its start only, and the way to read the rest.
    const { text } = decodeWhole(Buffer.from(body).subarray(0, maxBytes), true)
    return `${header}\n${text}\n[line ${firstLine} is longer than ${maxBytes} bytes and was clipped; read it by bytes with start and end]`
  }
  const more = reachedEnd && !cutShort ? '\n[end of artifact]' : `\n[more: read_artifact with startLine=${returnedLast + 1}]`
  return `${header}\n${body}${more}`
}

function decodeWhole(bytes: Uint8Array, mayBeCut: boolean): { text: string; length: number } {
  let length = bytes.length
  if (mayBeCut) {
    // Step back over continuation bytes (10xxxxxx) to the lead byte of a sequence that may be incomplete.
    let index = length - 1
    let continuation = 0
    while (index >= 0 && (bytes[index]! & 0xc0) === 0x80 && continuation < 3) {
      index--
      continuation++
    }
    if (index >= 0) {
      const lead = bytes[index]!
      const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
      if (needed > continuation + 1) length = index
    }
  }
  return { text: new TextDecoder().decode(bytes.subarray(0, length)), length }
}

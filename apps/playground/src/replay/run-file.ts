// The playground's run file: one run exported whole (record, events, snapshots, journal, session messages and the
// recorded model calls), what `GET /api/runs/:id/export` answers and what `replayRunFile` replays offline.
import type { AgentEvent, ExecutionRecord, RunRecord, RunSnapshot, SessionEntry } from '@spindle/core'
import { z } from 'zod'

/** Names the format; bumped when a field changes meaning. */
export const runFileFormat = 'spindle.run-file'
export const runFileVersion = 1

/** A model call as the playground recorded it (see `ModelCallRecorder`); absent for runs of an earlier process. */
export interface RunFileModelCall {
  runId: string
  step: number
  attempt: number
  provider: string
  modelId: string
  request: { messages: unknown[]; tools: unknown[]; settings: Record<string, unknown> }
  response: { parts: unknown[]; usage?: unknown; finishReason?: string; error?: string }
}

export interface RunFile {
  format: typeof runFileFormat
  version: typeof runFileVersion
  exportedAt: string
  run: RunRecord
  events: AgentEvent[]
  snapshots: RunSnapshot[]
  journal: ExecutionRecord[]
  /** The run's session log up to the run's end: the history its first step saw, and what it added. */
  sessionEntries: SessionEntry[]
  modelCalls: RunFileModelCall[]
  /** The runs it started as tools (`asTool`), each exported the same way (without their own sub-runs' files). */
  subRuns: Array<Omit<RunFile, 'format' | 'version' | 'exportedAt' | 'subRuns'>>
}

const looseArray = z.array(z.any())

/** Checks a parsed file's shape (not every event's): what an import and a replay accept. */
export const runFileSchema = z.object({
  format: z.literal(runFileFormat),
  version: z.literal(runFileVersion),
  exportedAt: z.string(),
  run: z.object({ id: z.string(), sessionId: z.string(), status: z.string(), request: z.record(z.string(), z.any()) }).passthrough(),
  events: z.array(z.object({ type: z.string(), runId: z.string(), seq: z.number() }).passthrough()),
  snapshots: looseArray,
  journal: looseArray,
  sessionEntries: looseArray,
  modelCalls: looseArray,
  subRuns: looseArray,
})

/** Parses a run file's text; throws an error that says what is wrong. */
export function parseRunFile(text: string): RunFile {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new Error('[spindle/playground] the run file is not valid JSON', { cause: error })
  }
  const parsed = runFileSchema.safeParse(raw)
  if (!parsed.success) {
    throw new Error(
      `[spindle/playground] not a run file of this playground (${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'file'}: ${issue.message}`).join('; ')}); export one with the Export button of the event log`,
    )
  }
  return parsed.data as unknown as RunFile
}

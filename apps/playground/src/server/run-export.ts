// Builds a run file (see replay/run-file.ts) from the stores and the model-call recorder.
import type { AgentRuntime, ExecutionRecord, RunRecord } from '@spindle/core'
import { type RunFile, type RunFileModelCall, runFileFormat, runFileVersion } from '../replay/run-file.js'
import type { ModelCallRecorder } from './model-call-recorder.js'
import { childRunsOf } from './run-tree.js'

type RunPart = RunFile['subRuns'][number]

/** The run exported whole, with the runs its agent tools started. */
export async function exportRun(runtime: AgentRuntime, recorder: ModelCallRecorder, run: RunRecord): Promise<RunFile> {
  const main = await runPart(runtime, recorder, run)
  const subRuns: RunPart[] = []
  const queue = [{ run, journal: main.journal }]
  // Breadth first, bounded: a sub-run's own sub-runs are exported too (flat), never more than 50.
  while (queue.length && subRuns.length < 50) {
    const parent = queue.shift()!
    for (const child of await childRunsOf(runtime, parent.run.id, parent.journal)) {
      const part = await runPart(runtime, recorder, child.run)
      subRuns.push(part)
      queue.push({ run: child.run, journal: part.journal })
    }
  }
  return { format: runFileFormat, version: runFileVersion, exportedAt: new Date().toISOString(), ...main, subRuns }
}

async function runPart(runtime: AgentRuntime, recorder: ModelCallRecorder, run: RunRecord): Promise<RunPart> {
  const [events, snapshots, journal, entries] = await Promise.all([
    runtime.runs.listEvents(run.id),
    runtime.snapshots.list(run.id),
    runtime.executions.listByRun(run.id),
    runtime.sessions.listEntries(run.sessionId),
  ])
  // The session up to the run's last entry: earlier history, and what the run added (later runs' entries left out).
  const lastOfRun = entries.findLast((entry) => entry.runId === run.id)?.seq
  const sessionEntries = lastOfRun === undefined ? entries : entries.filter((entry) => entry.seq <= lastOfRun)
  const modelCalls: RunFileModelCall[] = recorder
    .forRun(run.id)
    .map(({ runId, step, attempt, provider, modelId, request, response }) => ({ runId, step, attempt, provider, modelId, request, response }))
  return { run, events, snapshots, journal: journal as ExecutionRecord[], sessionEntries, modelCalls }
}

// Rebuilds a RunOutput from the stores (a duplicate submit, or a resume of a run that already ended).
import type { ModelMessage } from '../spec/messages.js'
import type { FinishReason, RunRecord } from '../spec/run-store.js'
import type { Stores } from '../spec/stores.js'
import type { RunOutput } from './run-request.js'
import { answerText, type RunState } from './run-state.js'

export async function outputFromStore(run: RunRecord, stores: Pick<Stores, 'sessions' | 'snapshots'>): Promise<RunOutput> {
  const snapshot = await stores.snapshots.latest(run.id)
  const state = snapshot?.state as unknown as RunState | undefined
  const messages: ModelMessage[] = []
  if (state) {
    const entries = await stores.sessions.listEntries(run.sessionId, { after: state.firstSeq - 1, before: state.lastSeq + 1 })
    for (const entry of entries) if (entry.kind === 'message' && entry.runId === run.id) messages.push(entry.message)
  }
  return {
    runId: run.id,
    sessionId: run.sessionId,
    finishReason: (run.finishReason ?? state?.finishReason ?? 'error') as FinishReason,
    // The snapshot's text is redacted; the messages hold the answer as written.
    text: state?.text ? answerText(messages) || state.text : '',
    messages,
    steps: run.step,
    usage: run.usage,
    ...(run.error ? { error: run.error } : {}),
  }
}

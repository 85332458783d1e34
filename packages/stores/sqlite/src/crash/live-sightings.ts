// Reads what the crash children's live subscribers saw: per run, one list per child life (a connection), in order.
import { existsSync, readFileSync } from 'node:fs'
import type { SeenEvent } from '@spindle/core'

/** The `live.jsonl` the harness writes: `LIFE` at each child start, then the child's `EVENT <json>` / `LAGGED n` lines. */
export function readLiveConnections(path: string): Map<string, SeenEvent[][]> {
  const byRun = new Map<string, SeenEvent[][]>()
  if (!existsSync(path)) return byRun
  let life = -1
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    // A lagged subscriber catches up from the log, like a new connection.
    if (line === 'LIFE' || line.startsWith('LAGGED ')) life++
    if (!line.startsWith('EVENT ')) continue
    const event = JSON.parse(line.slice('EVENT '.length)) as SeenEvent & { runId: string }
    let connections = byRun.get(event.runId)
    if (!connections) byRun.set(event.runId, (connections = []))
    while (connections.length <= life) connections.push([])
    connections[life]!.push({ seq: event.seq, type: event.type, ...(event.callId ? { callId: event.callId } : {}) })
  }
  return byRun
}

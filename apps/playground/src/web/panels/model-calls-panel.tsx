// "What the model really saw": per model call, the exact request (messages after the context adapters and
// compaction, tool schemas, settings), the raw response parts, and the context window as a picture.
import { useState } from 'react'
import { duration, json } from '../format'
import { ContextWindowBar } from './context-window-bar'
import type { ModelCallView } from './debugger-types'
import { useApiData } from './use-api-data'

function messageText(message: ModelCallView['request']['messages'][number]): string {
  return typeof message.content === 'string' ? message.content : json(message.content)
}

export function ModelCallsPanel(props: { runId?: string; version: number }) {
  const path = props.runId ? `/runs/${encodeURIComponent(props.runId)}/model-calls` : undefined
  const { data, error } = useApiData<{ calls: ModelCallView[] }>(path, props.version)
  const [picked, setPicked] = useState<string>()
  if (!props.runId) return <p className="muted">Pick a run to see its model calls.</p>
  if (error) return <p className="error-line">{error}</p>
  const calls = data?.calls ?? []
  if (!calls.length)
    return <p className="muted">No model call recorded for this run in this server process (calls are kept in memory; a run from before a restart has none).</p>
  const call = calls.find((candidate) => candidate.id === picked) ?? calls.at(-1)!
  return (
    <div className="model-calls" data-testid="model-calls">
      <ol className="call-list" aria-label="Model calls">
        {calls.map((candidate) => (
          <li key={candidate.id}>
            <button className={candidate.id === call.id ? 'selected' : ''} onClick={() => setPicked(candidate.id)} aria-pressed={candidate.id === call.id}>
              <strong>Step {candidate.step}</strong>
              {candidate.attempt > 0 && <span className="badge subtle">attempt {candidate.attempt + 1}</span>}
              <span className="muted">
                {candidate.composition.total.toLocaleString()} tokens · {duration(candidate.durationMs)}
              </span>
            </button>
          </li>
        ))}
      </ol>
      <div className="call-detail" data-testid="model-call-detail">
        <h3>
          Step {call.step} · {call.provider}:{call.modelId}{' '}
          <span className="muted">{call.response.finishReason ?? (call.response.error ? 'error' : 'streaming…')}</span>
        </h3>
        <ContextWindowBar composition={call.composition} />
        <h4>Request messages ({call.request.messages.length})</h4>
        <ol className="request-messages">
          {call.request.messages.map((message, index) => {
            const text = messageText(message)
            return (
              <li key={index} className={`role-${message.role}`} data-role={message.role}>
                <div className="message-head">
                  <span className="badge">{message.role}</span>{' '}
                  <span className="muted">{(call.composition.perMessage[index] ?? 0).toLocaleString()} tokens</span>
                </div>
                <pre>{text}</pre>
              </li>
            )
          })}
        </ol>
        <h4>Tool schemas ({call.request.tools.length})</h4>
        <ul className="tool-schemas">
          {call.request.tools.map((tool, index) => (
            <li key={tool.name}>
              <details>
                <summary>
                  <code>{tool.name}</code>{' '}
                  <span className="muted">
                    {(call.composition.perTool[index] ?? 0).toLocaleString()} tokens · {tool.description}
                  </span>
                </summary>
                <pre>{json(tool.inputSchema)}</pre>
              </details>
            </li>
          ))}
        </ul>
        <h4>Settings</h4>
        <pre data-testid="model-call-settings">{json(call.request.settings)}</pre>
        <h4>
          Raw response ({call.response.parts.length} parts
          {call.response.usage ? ` · ${call.response.usage.inputTokens} in · ${call.response.usage.outputTokens} out` : ''})
        </h4>
        <pre data-testid="model-call-response">{call.response.parts.map((part) => JSON.stringify(part)).join('\n')}</pre>
      </div>
    </div>
  )
}

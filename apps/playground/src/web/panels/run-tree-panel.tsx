// Multi-agent runs as a tree: each step with its tool calls; an agent used as a tool holds its sub-run nested under
// the calling step (recursively), a handoff names the agent that took over. Any run of the tree opens in the page.
import { duration, shortId } from '../format'
import type { RunTreeNode } from './debugger-types'
import { useApiData } from './use-api-data'

export function RunTreePanel(props: { runId?: string; version: number; onOpenRun(sessionId: string, runId: string): void }) {
  const path = props.runId ? `/runs/${encodeURIComponent(props.runId)}/tree` : undefined
  const { data, error } = useApiData<{ tree: RunTreeNode }>(path, props.version)
  if (!props.runId) return <p className="muted">Pick a run to see its tree.</p>
  if (error) return <p className="error-line">{error}</p>
  if (!data) return <p className="muted">Loading…</p>
  return (
    <div className="run-tree" data-testid="run-tree">
      {data.tree.parentRunId && (
        <p>
          A sub-run of{' '}
          <button className="link" onClick={() => void openParent(data.tree.parentRunId!, props.onOpenRun)}>
            {shortId(data.tree.parentRunId)}
          </button>
        </p>
      )}
      <TreeNode node={data.tree} current={props.runId} onOpenRun={props.onOpenRun} />
    </div>
  )
}

async function openParent(runId: string, open: (sessionId: string, runId: string) => void): Promise<void> {
  const response = await fetch(`/api/runs/${encodeURIComponent(runId)}`)
  if (response.ok) open(((await response.json()) as { run: { sessionId: string } }).run.sessionId, runId)
}

function TreeNode(props: { node: RunTreeNode; current: string; onOpenRun(sessionId: string, runId: string): void }) {
  const { node } = props
  return (
    <div className="tree-node" data-run={node.runId} data-agent={node.agent}>
      <div className="tree-node-head">
        <span className="badge agent">{node.agent}</span>
        <code title={node.runId}>{shortId(node.runId)}</code>
        <span className={`badge status-${node.status}`}>{node.status}</span>
        {node.runId !== props.current && <button onClick={() => props.onOpenRun(node.sessionId, node.runId)}>Open run</button>}
      </div>
      <ol className="tree-steps">
        {node.steps.map((step) => (
          <li key={step.step} data-step={step.step}>
            <details open>
              <summary>
                Step {step.step}{' '}
                <span className="muted">
                  {step.finishReason ?? 'unfinished'}
                  {step.tokens !== undefined ? ` · ${step.tokens.toLocaleString()} tokens` : ''}
                </span>
              </summary>
              <ul className="tree-calls">
                {step.calls.map((call) => (
                  <li key={call.callId} data-tool={call.toolName}>
                    <span className={`tree-call ${call.status}`}>
                      {call.subRun ? '↳ ' : ''}
                      <code>{call.toolName}</code>{' '}
                      <span className="muted">
                        {call.status} · {duration(call.durationMs)}
                      </span>
                    </span>
                    {call.subRun && <TreeNode node={call.subRun} current={props.current} onOpenRun={props.onOpenRun} />}
                  </li>
                ))}
                {step.handoffs.map((handoff) => (
                  <li key={`handoff-${handoff.callId}`} className="tree-handoff" data-testid="tree-handoff">
                    ⇢ handed over from <strong>{handoff.from}</strong> to <strong>{handoff.to}</strong>
                  </li>
                ))}
              </ul>
            </details>
          </li>
        ))}
      </ol>
    </div>
  )
}

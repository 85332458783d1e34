// Agents and tools, read from the running server: each agent's instructions and tools (schemas, effect classes,
// approval), the runtime's policy limits, the stores and the providers. The server sends no key or token.
import { json } from '../format'
import type { AgentsConfigView } from './debugger-types'
import { useApiData } from './use-api-data'

function policyRows(policy: Record<string, unknown>, prefix = ''): Array<[string, string]> {
  return Object.entries(policy).flatMap(([key, value]) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? policyRows(value as Record<string, unknown>, `${prefix}${key}.`)
      : [[`${prefix}${key}`, JSON.stringify(value)] as [string, string]],
  )
}

export function AgentsPanel() {
  const { data, error } = useApiData<AgentsConfigView>('/agents')
  if (error) return <p className="error-line">{error}</p>
  if (!data) return <p className="muted">Loading…</p>
  return (
    <div className="agents-panel" data-testid="agents-panel">
      <div className="agents-list">
        {data.agents.map((agent) => (
          <section key={agent.name} className="agent-card" data-agent={agent.name}>
            <h3>
              {agent.name} <span className="badge subtle">{agent.role}</span> <span className="muted">{agent.model}</span>
            </h3>
            {agent.description && <p className="muted">{agent.description}</p>}
            {agent.instructions && <blockquote className="instructions">{agent.instructions}</blockquote>}
            <table className="tools-table">
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Effect</th>
                  <th>Approval</th>
                  <th>Idempotent</th>
                  <th>Schema</th>
                </tr>
              </thead>
              <tbody>
                {agent.tools.map((tool) => (
                  <tr key={tool.name} data-tool={tool.name}>
                    <td>
                      <code>{tool.name}</code>
                      {tool.agent && (
                        <span className="badge agent">
                          {tool.agent.kind === 'handoff' ? 'hands over to' : 'sub-run of'} {tool.agent.name}
                        </span>
                      )}
                      <div className="muted">{tool.description}</div>
                    </td>
                    <td>
                      <span className={`badge effect-${tool.effect}`}>{tool.effect}</span>
                    </td>
                    <td>{tool.approval}</td>
                    <td>{tool.idempotent ? 'yes' : 'no'}</td>
                    <td>
                      <details>
                        <summary>schema</summary>
                        <pre>{json(tool.inputSchema)}</pre>
                      </details>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}
      </div>
      <aside className="agents-side">
        <section>
          <h3>Policy limits</h3>
          <table className="policy-table" data-testid="policy-table">
            <tbody>
              {policyRows(data.policy).map(([key, value]) => (
                <tr key={key}>
                  <th>{key}</th>
                  <td>{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section>
          <h3>Stores</h3>
          <p data-testid="store-kind">
            {data.store.kind}
            {data.store.schema ? ` (schema ${data.store.schema})` : ''}
          </p>
        </section>
        <section>
          <h3>Providers</h3>
          <ul className="providers" data-testid="providers">
            {data.providers.map((provider) => (
              <li key={provider.id}>
                <code>{provider.id}</code>{' '}
                <span className="muted">
                  {provider.label}
                  {provider.pricing
                    ? ` · $${provider.pricing.input}/$${provider.pricing.output} per M tokens${provider.pricing.note ? ` (${provider.pricing.note})` : ''}`
                    : ''}
                </span>
              </li>
            ))}
          </ul>
        </section>
      </aside>
    </div>
  )
}

// The event log's filters: by type, step and tool, and a free-text search over each event's JSON.
import type { AgentEvent } from '../types'

export interface EventFilter {
  type: string
  step: string
  tool: string
  search: string
}

export const noFilter: EventFilter = { type: '', step: '', tool: '', search: '' }

export function toolOf(event: AgentEvent): string | undefined {
  return 'toolName' in event ? event.toolName : undefined
}

export function stepOf(event: AgentEvent): number | undefined {
  return 'step' in event ? event.step : undefined
}

/** The values each filter can take, from the events shown. */
export function filterChoices(events: AgentEvent[]): { types: string[]; steps: number[]; tools: string[] } {
  const types = new Set<string>()
  const steps = new Set<number>()
  const tools = new Set<string>()
  for (const event of events) {
    types.add(event.type)
    const step = stepOf(event)
    if (step !== undefined) steps.add(step)
    const tool = toolOf(event)
    if (tool) tools.add(tool)
  }
  return { types: [...types].sort(), steps: [...steps].sort((a, b) => a - b), tools: [...tools].sort() }
}

export function filterEvents(events: AgentEvent[], filter: EventFilter): AgentEvent[] {
  const needle = filter.search.trim().toLowerCase()
  return events.filter((event) => {
    if (filter.type && event.type !== filter.type) return false
    if (filter.step && String(stepOf(event)) !== filter.step) return false
    if (filter.tool && toolOf(event) !== filter.tool) return false
    return !needle || JSON.stringify(event).toLowerCase().includes(needle)
  })
}

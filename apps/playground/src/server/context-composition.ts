// What a model request's context window is made of, in tokens: instructions, memory, compaction summary, history,
// tool results and tool schemas, against the model's limit (counted with core's estimate tokenizer).
import { countMessageTokens, estimateTokenizer, type ModelMessage, type ToolSpecification } from '@spindle/core'

/** The parts of a context window; `tokens` per part add up to `total`. */
export interface ContextComposition {
  parts: Array<{ kind: ContextPartKind; label: string; tokens: number }>
  total: number
  /** The model's context window. */
  limit: number
  /** Kept free for the answer (`maxOutputTokens` of the request). */
  outputReserve: number
  /** Tokens of each request message, in order. */
  perMessage: number[]
  /** Tokens of each tool schema, in order. */
  perTool: number[]
}

export type ContextPartKind = 'system' | 'memory' | 'summary' | 'history' | 'tool-results' | 'tool-schemas'

const labels: Record<ContextPartKind, string> = {
  system: 'System instructions',
  memory: 'Memory (other system sections)',
  summary: 'Compaction summary',
  history: 'History (user and assistant)',
  'tool-results': 'Tool results',
  'tool-schemas': 'Tool schemas',
}

/** Per-section token counts of the system message, and the rest of the request counted per message. */
export function composeContext(input: {
  messages: ModelMessage[]
  tools: ToolSpecification[]
  sections: { instructions?: string; summary?: string; memory: string[] }
  contextWindow: number
  maxOutputTokens?: number
}): ContextComposition {
  const tokens: Record<ContextPartKind, number> = { system: 0, memory: 0, summary: 0, history: 0, 'tool-results': 0, 'tool-schemas': 0 }
  const count = (text: string | undefined) => (text ? estimateTokenizer.count(text) : 0)
  const { sections } = input
  const perMessage: number[] = []
  for (const message of input.messages) {
    const total = countMessageTokens(message, estimateTokenizer)
    perMessage.push(total)
    if (message.role === 'system') {
      // The first system message joins the sections; what is not instructions or summary is memory.
      const summary = Math.min(total, count(sections.summary))
      const memory = Math.min(
        total - summary,
        sections.memory.reduce((sum, section) => sum + count(section), 0),
      )
      tokens.summary += summary
      tokens.memory += memory
      // The instructions, and the message's own overhead.
      tokens.system += total - summary - memory
    } else if (message.role === 'tool') tokens['tool-results'] += total
    else tokens.history += total
  }
  const perTool = input.tools.map((tool) => estimateTokenizer.count(JSON.stringify(tool)) + 1)
  tokens['tool-schemas'] = perTool.reduce((sum, count) => sum + count, 0)
  const parts = (Object.keys(labels) as ContextPartKind[]).map((kind) => ({ kind, label: labels[kind], tokens: tokens[kind] }))
  return {
    parts,
    total: parts.reduce((sum, part) => sum + part.tokens, 0),
    limit: input.contextWindow,
    outputReserve: input.maxOutputTokens ?? 0,
    perMessage,
    perTool,
  }
}

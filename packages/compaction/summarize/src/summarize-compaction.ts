// summarizeCompaction: a CompactionStrategy that asks a model for an incremental summary (the previous summary
// plus the turns being compacted) with fixed sections, cut only where no tool call is split from its result.
import { ConfigurationError, type CompactionInput, type CompactionRecord, type CompactionStrategy, type LanguageModel, type SessionEntry } from '@spindle/core'
import { safeCutPoints } from '@spindle/core/plugin-kit'
import { collectText } from './collect-text.js'
import { transcriptChunks } from './render-transcript.js'
import { parseSummary, renderSummary, summarySections } from './summary-sections.js'

/** Options of `summarizeCompaction()`: the summarizing model, the summary's token budget and how transcripts are cut. */
export interface SummarizeCompactionOptions {
  /** The model that writes the summary (a small, cheap one is usually enough). */
  model: LanguageModel
  /** Most tokens the summary may take (its output limit, and the room reserved for it in the window). Default 800. */
  maxSummaryTokens?: number
  /** Longest text kept from one tool result or argument list in the transcript sent to the summarizer. Default 2,000 characters. */
  maxPartChars?: number
  /**
   * Most characters of transcript sent in one summarization. Default 60,000. Longer turns are summarized in parts,
   * one after another, each merged into the summary of the parts before it (nothing is left out).
   */
  maxTranscriptChars?: number
  /** Extra guidance appended to the summarizer's instructions (e.g. what the domain must never lose). */
  instructions?: string
  /** Gives up (and lets the CompactionService fall back to truncation) after this long, every part included. Default 60 s. */
  timeoutMs?: number
}

const baseInstructions = [
  'You maintain the running memory of a long conversation between a user and an AI agent that uses tools.',
  'You receive the previous summary (possibly empty) and the conversation turns that are about to leave the context window.',
  'Write the updated summary: merge the new turns into the previous summary, keep every fact, figure, name, identifier, file path and user preference that later turns may need, and drop chatter.',
  `Answer with exactly these five markdown sections, in this order, and nothing else: ${summarySections.map((name) => `"## ${name}"`).join(', ')}.`,
  'Goal: what the user wants overall. Constraints: requirements, preferences and limits the user stated. Progress: what was done and found (tool results that matter, with their key values). Decisions: choices made and why. Next steps: what remains to do.',
  'Write "(none)" under a section with nothing to say. Be concise.',
].join('\n')

/**
 * @example
 * const extensions = new Extensions()
 * extensions.compaction = summarizeCompaction({ model: anthropic('claude-haiku-4-5'), maxSummaryTokens: 600 })
 */
export function summarizeCompaction(options: SummarizeCompactionOptions): CompactionStrategy {
  checkOptions(options)
  const maxSummaryTokens = options.maxSummaryTokens ?? 800
  const maxPartChars = options.maxPartChars ?? 2_000
  const maxTranscriptChars = options.maxTranscriptChars ?? 60_000
  const timeoutMs = options.timeoutMs ?? 60_000
  const system = options.instructions ? `${baseInstructions}\n\n${options.instructions}` : baseInstructions
  /** One summarization: the updated summary, rendered in the five sections; throws for an answer that must not replace history. */
  async function summarizeOnce(prompt: string, signal: AbortSignal, timeout: AbortSignal): Promise<string> {
    const { text, finishReason } = await collectText(
      options.model,
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: prompt },
        ],
        maxOutputTokens: maxSummaryTokens,
        temperature: 0,
      },
      signal,
    ).catch((error: unknown) => {
      if (!timeout.aborted && signal.aborted) throw signal.reason ?? error
      if (timeout.aborted)
        throw new Error(`[spindle/compaction-summarize] the summarizer took longer than ${timeoutMs} ms; raise timeoutMs or use a faster model`, {
          cause: error,
        })
      throw error
    })
    // Cut off at its output limit, a summary misses its last sections: it would replace the previous summary's
    // (decisions, next steps) with "(none)". Failing keeps the previous summary (the service truncates instead).
    if (finishReason === 'length') {
      throw new Error(
        `[spindle/compaction-summarize] the summary was cut off at maxSummaryTokens (${maxSummaryTokens}); raise maxSummaryTokens or ask for a shorter summary in \`instructions\``,
      )
    }
    const sections = parseSummary(text)
    // An empty or unstructured answer must never replace history: failing lets the service fall back to truncation.
    if (!text.trim()) throw new Error('[spindle/compaction-summarize] the summarizer returned an empty summary')
    if (!sections) throw new Error(`[spindle/compaction-summarize] the summarizer's answer has none of the sections ${summarySections.join(', ')}`)
    return renderSummary(sections)
  }

  return {
    specificationVersion: 'v1',
    name: 'summarize',
    async compact(input: CompactionInput): Promise<CompactionRecord | undefined> {
      const cut = chooseCut(input, maxSummaryTokens)
      if (!cut) return undefined
      const compacted = input.window.filter((entry) => entry.seq <= cut.throughSeq)
      const chunks = transcriptChunks(compacted, { maxPartChars, maxChars: maxTranscriptChars })
      // One deadline for the whole compaction, however many parts it takes.
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = AbortSignal.any([input.signal, timeout])
      let summary = input.previous?.summary?.trim() ?? ''
      for (let index = 0; index < chunks.length; index++) {
        const part = chunks.length > 1 ? ` (part ${index + 1} of ${chunks.length}, in order)` : ''
        const prompt = `Previous summary:\n${summary || '(none yet)'}\n\nNew turns to merge into it${part}:\n${chunks[index]}\n\nWrite the updated summary now.`
        summary = await summarizeOnce(prompt, signal, timeout)
      }
      return { throughSeq: cut.throughSeq, strategy: 'summarize', summary, tokensBefore: cut.tokensBefore, tokensAfter: cut.tokensAfter }
    },
  }
}

/**
 * The earliest safe cut after which the kept turns fit the target, leaving room for the summary to grow
 * (it replaces the previous one); the last safe cut when none fits.
 */
function chooseCut(input: CompactionInput, maxSummaryTokens: number): { throughSeq: number; tokensBefore: number; tokensAfter: number } | undefined {
  const points = safeCutPoints(input.window)
  if (!points.length) return undefined
  const tokens = input.window.map((entry: SessionEntry) => (entry.kind === 'message' ? input.countTokens([entry.message]) : 0))
  const total = tokens.reduce((sum, value) => sum + value, 0)
  const previousSummary = input.previous?.summary ? input.countTokens([{ role: 'system', content: input.previous.summary }]) : 0
  const target = Math.max(0, input.targetTokens - Math.max(0, maxSummaryTokens - previousSummary))
  let removed = 0
  let index = 0
  let chosen = points[points.length - 1]!
  let after = 0
  for (const seq of points) {
    while (index < input.window.length && input.window[index]!.seq <= seq) removed += tokens[index++]!
    chosen = seq
    after = total - removed
    if (after <= target) break
  }
  return { throughSeq: chosen, tokensBefore: total, tokensAfter: after }
}

/** Fails at once, naming the option, rather than at the first compaction deep inside a run. */
function checkOptions(options: SummarizeCompactionOptions): void {
  const problems: string[] = []
  if (typeof options?.model?.stream !== 'function') problems.push('`model` must be a LanguageModel (e.g. anthropic("claude-haiku-4-5"))')
  const limits = { maxSummaryTokens: 1, maxPartChars: 2, maxTranscriptChars: 2, timeoutMs: 1 } as const
  for (const [key, minimum] of Object.entries(limits) as Array<[keyof typeof limits, number]>) {
    const value = options?.[key]
    if (value !== undefined && !(Number.isInteger(value) && value >= minimum && value <= 2_147_483_647))
      problems.push(`\`${key}\` must be an integer of at least ${minimum}, got ${String(value)}`)
  }
  if (options?.instructions !== undefined && typeof options.instructions !== 'string') problems.push('`instructions` must be a string')
  if (problems.length) throw new ConfigurationError(`[spindle/compaction-summarize] invalid summarizeCompaction options: ${problems.join('; ')}`)
}

// The fixed sections of a summary, and a lenient parser that turns a model's answer into the canonical form.

/** The sections every summary has, in order. */
export const summarySections = ['Goal', 'Constraints', 'Progress', 'Decisions', 'Next steps'] as const

export type SummarySection = (typeof summarySections)[number]

const headingPattern = new RegExp(`^\\s*(?:#{1,6}\\s*|\\*\\*)?\\s*(${summarySections.map((name) => name.replace(' ', '\\s+')).join('|')})\\s*(?:\\*\\*)?\\s*:?\\s*(?:\\*\\*)?\\s*(.*)$`, 'i')

/**
 * Parses headed sections (`## Goal`, `**Goal:**`, `Goal:`); text before the first heading is ignored.
 * Returns undefined when no section heading is found (the answer is not a summary).
 */
export function parseSummary(text: string): Map<SummarySection, string> | undefined {
  const sections = new Map<SummarySection, string[]>()
  let current: SummarySection | undefined
  for (const line of text.split(/\r?\n/)) {
    const match = headingPattern.exec(line)
    if (match) {
      const name = summarySections.find((section) => section.toLowerCase() === match[1]!.toLowerCase().replace(/\s+/g, ' '))!
      current = name
      if (!sections.has(name)) sections.set(name, [])
      if (match[2]?.trim()) sections.get(name)!.push(match[2].trim())
      continue
    }
    if (current) sections.get(current)!.push(line)
  }
  if (!sections.size) return undefined
  const result = new Map<SummarySection, string>()
  for (const [name, lines] of sections) result.set(name, lines.join('\n').trim())
  return result
}

/** Renders sections in the fixed order; a missing or empty section reads `(none)`. */
export function renderSummary(sections: Map<SummarySection, string>): string {
  return summarySections.map((name) => `## ${name}\n${sections.get(name) || '(none)'}`).join('\n\n')
}

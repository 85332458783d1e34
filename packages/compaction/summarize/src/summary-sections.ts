// The fixed sections of a summary, and a lenient parser that turns a model's answer into the canonical form.

/** The sections every summary has, in order. */
export const summarySections = ['Goal', 'Constraints', 'Progress', 'Decisions', 'Next steps'] as const

/**
 * The name of one section of a compaction summary: `Goal`, `Constraints`, `Progress`, `Decisions` or `Next steps`
 * (see `summarySections`, which lists them in order).
 */
export type SummarySection = (typeof summarySections)[number]

const sectionPattern = new RegExp(`^(${summarySections.map((name) => name.replace(' ', '\\s+')).join('|')})(?![\\p{L}\\p{N}_])`, 'iu')

/**
 * The section a line opens, with the text that follows its name on the same line; undefined for a body line.
 * A markdown heading (`## Goal`) always opens one; a bold name only when the bold closes right after it
 * (`**Goal**`, `**Goal:**`); a bold or plain name only before a colon (`Goal: …`) or alone on its line. So a body line
 * that merely starts with a section word ("Progress so far: …", "Decisions about the hotel are pending",
 * "**Constraints** matter less now") stays where it is.
 */
function headingOf(line: string): { name: SummarySection; rest: string } | undefined {
  let text = line.trim()
  const hashed = /^#{1,6}(?!#)/.exec(text)
  if (hashed) text = text.slice(hashed[0].length).trimStart()
  const bold = text.startsWith('**')
  if (bold) text = text.slice(2).trimStart()
  const match = sectionPattern.exec(text)
  if (!match) return undefined
  const after = /^\s*(\*\*)?\s*(:)?\s*(\*\*)?\s*(:)?\s*/.exec(text.slice(match[0].length))!
  const closed = after[1] !== undefined || after[3] !== undefined
  const colon = after[2] !== undefined || after[4] !== undefined
  const rest = text.slice(match[0].length + after[0].length).trim()
  if (bold && !closed) return undefined
  if (!hashed && !colon && rest) return undefined
  const name = summarySections.find((section) => section.toLowerCase() === match[1]!.toLowerCase().replace(/\s+/g, ' '))!
  return { name, rest }
}

/**
 * Parses headed sections (`## Goal`, `**Goal:**`, `Goal:`); text before the first heading is ignored.
 * Returns undefined when no section heading is found (the answer is not a summary).
 */
export function parseSummary(text: string): Map<SummarySection, string> | undefined {
  const sections = new Map<SummarySection, string[]>()
  let current: SummarySection | undefined
  for (const line of text.split(/\r?\n/)) {
    const heading = headingOf(line)
    if (heading) {
      current = heading.name
      if (!sections.has(heading.name)) sections.set(heading.name, [])
      if (heading.rest) sections.get(heading.name)!.push(heading.rest)
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

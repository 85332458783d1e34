// Bounds on the text the execution journal stores: a tool's error message can be anything (a DNS error quoting a
// 100,000-character host), and every store would keep it whole, run after run. Every journal write of a run goes
// through `boundExecutionOutcome` (the run's ToolJournal), so every store gets bounded records.
import type { ExecutionOutcome } from '../spec/execution-store.js'

/** The most UTF-16 code units of an error message the journal stores (longer ones are cut, with a marker). */
export const maxJournalMessageLength = 8_192
/** The most UTF-16 code units of an error code the journal stores. */
export const maxJournalCodeLength = 128

/**
 * `text` at most `max` UTF-16 code units long: a longer one keeps its head and ends with a marker saying how
 * much was cut (`…[journal: 91,843 of 100,000 characters cut]`). A surrogate pair is never split.
 *
 * @example
 * boundJournalText('x'.repeat(100_000)).length // 8_192
 */
export function boundJournalText(text: string, max: number = maxJournalMessageLength): string {
  if (text.length <= max) return text
  const markerFor = (cut: number) => `…[journal: ${cut.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters cut]`
  // The marker's length depends on the count it prints, which depends on what is kept: settled in a few rounds.
  let keep = Math.max(0, max - markerFor(text.length).length)
  for (let round = 0; round < 3; round++) keep = Math.max(0, max - markerFor(text.length - keep).length)
  const code = text.charCodeAt(keep - 1)
  if (keep > 0 && code >= 0xd800 && code <= 0xdbff) keep-- // a high surrogate whose low half would be cut
  const marker = markerFor(text.length - keep)
  return marker.length > max ? marker.slice(0, max) : text.slice(0, keep) + marker
}

/**
 * The outcome as the journal stores it: its error code and message bounded (`maxJournalCodeLength`,
 * `maxJournalMessageLength`). A result is kept whole: it is the resume data a resumed run reuses.
 */
export function boundExecutionOutcome(outcome: ExecutionOutcome): ExecutionOutcome {
  const error = outcome.error
  if (!error || (error.code.length <= maxJournalCodeLength && error.message.length <= maxJournalMessageLength)) return outcome
  return { ...outcome, error: { ...error, code: boundJournalText(error.code, maxJournalCodeLength), message: boundJournalText(error.message) } }
}

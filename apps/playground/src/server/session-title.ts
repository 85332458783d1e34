// A session's title from its first message.
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** The first line, at most 60 characters: cut between grapheme clusters, so that no emoji is cut in half. */
export function sessionTitle(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? ''
  if (line.length <= 60) return line || 'New session'
  const characters = Array.from(graphemes.segment(line), (part) => part.segment)
  return characters.length > 60 ? `${characters.slice(0, 57).join('')}…` : line
}

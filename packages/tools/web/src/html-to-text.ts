// A small, linear-time HTML to readable-text converter: scripts, styles and other non-content
// elements are dropped; headings, list items, paragraphs and link texts are kept.

/** A link kept by `htmlToText()`: its text and absolute URL. */
export interface ReadableLink {
  text: string
  href: string
}

/** What `htmlToText()` keeps of a page: title, readable text and links. */
export interface ReadablePage {
  title: string
  text: string
  links: ReadableLink[]
}

/** Elements whose content is never text for a reader. */
const skippedElements = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'canvas', 'head', 'select', 'textarea'])
const blockElements = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hr',
  'html',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
  'caption',
])
const entities: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  deg: '°',
  times: '×',
  divide: '÷',
  shy: '',
}

/**
 * Decodes HTML character references: numeric ones (`&#233;`, `&#xE9;`) and the named ones of the table (`&amp;`,
 * `&nbsp;`…). An invalid code point becomes U+FFFD; an unknown name is left as written.
 *
 * @example
 * decodeEntities('Caf&#233; &amp; bar &#x2014; &unknown;') // 'Café & bar — &unknown;'
 */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,31});?/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\uFFFD'
    }
    return entities[name.toLowerCase()] ?? whole
  })
}

/**
 * Extracts readable text from HTML.
 *
 * @example
 * htmlToText('<h1>Hi</h1><p>See <a href="/x">this</a></p>', 'https://example.com/').text // '# Hi\n\nSee this'
 */
export function htmlToText(html: string, baseUrl?: string): ReadablePage {
  const lower = html.toLowerCase()
  const out: string[] = []
  const links: ReadableLink[] = []
  let title = ''
  let link: { href: string; start: number } | undefined
  let position = 0
  let preDepth = 0
  const emitText = (raw: string) => {
    if (!raw) return
    const decoded = decodeEntities(raw)
    out.push(preDepth > 0 ? decoded : decoded.replace(/\s+/g, ' '))
  }
  while (position < html.length) {
    const open = html.indexOf('<', position)
    if (open === -1) {
      emitText(html.slice(position))
      break
    }
    emitText(html.slice(position, open))
    if (lower.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4)
      position = end === -1 ? html.length : end + 3
      continue
    }
    const close = html.indexOf('>', open + 1)
    if (close === -1) break
    const tagText = html.slice(open + 1, close)
    position = close + 1
    const match = /^(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(tagText)
    if (!match) {
      if (/^[!?]/.test(tagText)) continue // doctype, processing instruction
      emitText('<') // a stray "<" in text: keep it and read on right after it
      position = open + 1
      continue
    }
    const closing = match[1] === '/'
    const name = match[2].toLowerCase()
    if (!closing && name === 'title') {
      const end = lower.indexOf('</title', position)
      title = decodeEntities(html.slice(position, end === -1 ? html.length : end))
        .replace(/\s+/g, ' ')
        .trim()
      position = end === -1 ? html.length : skipTag(html, end)
      continue
    }
    if (!closing && skippedElements.has(name) && !tagText.endsWith('/')) {
      // Raw content: jump to the matching close tag (linear; no nesting in script/style).
      const end = lower.indexOf(`</${name}`, position)
      if (name === 'head') {
        const titleStart = lower.indexOf('<title', position)
        if (titleStart !== -1 && (end === -1 || titleStart < end)) {
          const titleOpen = html.indexOf('>', titleStart)
          const titleEnd = lower.indexOf('</title', titleOpen)
          if (titleOpen !== -1 && titleEnd !== -1)
            title = decodeEntities(html.slice(titleOpen + 1, titleEnd))
              .replace(/\s+/g, ' ')
              .trim()
        }
      }
      position = end === -1 ? html.length : skipTag(html, end)
      continue
    }
    if (/^h[1-6]$/.test(name)) {
      out.push(closing ? '\n\n' : `\n\n${'#'.repeat(Number(name[1]))} `)
    } else if (name === 'li') {
      if (!closing) out.push('\n- ')
    } else if (name === 'br') {
      out.push('\n')
    } else if (name === 'td' || name === 'th') {
      if (closing) out.push(' | ')
    } else if (name === 'pre') {
      preDepth = Math.max(0, preDepth + (closing ? -1 : 1))
      out.push('\n\n')
    } else if (blockElements.has(name)) {
      out.push('\n\n')
    } else if (name === 'a') {
      if (!closing) {
        const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tagText)
        link = href ? { href: decodeEntities(href[1] ?? href[2] ?? href[3] ?? ''), start: out.length } : undefined
      } else if (link) {
        const text = out.slice(link.start).join('').replace(/\s+/g, ' ').trim()
        const href = absolutize(link.href, baseUrl)
        if (href && text && links.length < 500) links.push({ text, href })
        link = undefined
      }
    } else if (name === 'img' && !closing) {
      const alt = /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tagText)
      if (alt && (alt[1] ?? alt[2])) out.push(`[${decodeEntities(alt[1] ?? alt[2] ?? '')}]`)
    }
  }
  return { title, text: tidy(out.join('')), links }
}

function skipTag(html: string, start: number): number {
  const end = html.indexOf('>', start)
  return end === -1 ? html.length : end + 1
}

function absolutize(href: string, baseUrl: string | undefined): string | undefined {
  if (!href || /^(javascript|data|vbscript):/i.test(href.trim())) return undefined
  try {
    return new URL(href, baseUrl).href
  } catch {
    return undefined
  }
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

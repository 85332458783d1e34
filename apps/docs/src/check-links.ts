// Finds broken internal links and anchors in a built site: every <a href> that points inside the site must name a
// page that exists and, when it has a #fragment, an element with that id on that page; every <img src> a file that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'

function pageFile(distDir: string, pathname: string): string | undefined {
  const clean = decodeURIComponent(pathname).replace(/^\//, '')
  const candidates = clean === '' || clean.endsWith('/') ? [join(clean, 'index.html')] : [clean, `${clean}.html`, join(clean, 'index.html')]
  return candidates.map((candidate) => join(distDir, candidate)).find((file) => existsSync(file) && !file.endsWith('/'))
}

const idsCache = new Map<string, Set<string>>()
function idsOf(file: string): Set<string> {
  let ids = idsCache.get(file)
  if (!ids) {
    ids = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((match) => decodeEntities(match[1]!)))
    idsCache.set(file, ids)
  }
  return ids
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
}

/** `page → href: why` for each broken link; checks `checkedPages` and returns how many links it followed. */
export function findBrokenLinks(distDir: string): { broken: string[]; links: number; pages: number } {
  idsCache.clear()
  const pages = (readdirSync(distDir, { recursive: true, encoding: 'utf8' }) as string[]).filter((file) => file.endsWith('.html'))
  const broken: string[] = []
  let links = 0
  for (const page of pages) {
    const html = readFileSync(join(distDir, page), 'utf8')
    for (const match of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = decodeEntities(match[1]!)
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue
      links++
      const [path, fragment] = href.split('#') as [string, string | undefined]
      const pageUrl = `/${page.replace(/\\/g, '/')}`
      const pathname = path === '' ? pageUrl : path.startsWith('/') ? path : posix.join(posix.dirname(pageUrl), path)
      const target = pageFile(distDir, pathname.split('?')[0]!)
      if (!target) {
        broken.push(`${page} → ${href}: no such page`)
        continue
      }
      if (fragment && target.endsWith('.html') && !idsOf(target).has(decodeURIComponent(fragment)))
        broken.push(`${page} → ${href}: no #${fragment} on ${posix.relative(distDir, target)}`)
    }
    // Images (screenshots, plots): the file must be in the built site.
    for (const match of html.matchAll(/<img\s[^>]*?src="([^"]*)"/g)) {
      const src = decodeEntities(match[1]!)
      if (/^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith('//')) continue
      links++
      const pageUrl = `/${page.replace(/\\/g, '/')}`
      const pathname = src.startsWith('/') ? src : posix.join(posix.dirname(pageUrl), src)
      if (!existsSync(join(distDir, decodeURIComponent(pathname.split(/[?#]/)[0]!)))) broken.push(`${page} → ${src}: no such image`)
    }
  }
  void dirname
  return { broken, links, pages: pages.length }
}

// TypeDoc numbers an anchor (`#tooleffect-1`) when its own slugger saw the name twice, although the page has one
// such heading, which VitePress slugs as `#tooleffect`. This rewrites such links to the anchor the page really has.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'

/** VitePress's heading slug (`@mdit-vue/shared` slugify): lower case, punctuation dropped, spaces to dashes. */
export function vitepressSlug(text) {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    // eslint-disable-next-line no-control-regex -- VitePress's slugify drops control characters too
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase()
}

function headingSlugs(markdown) {
  const seen = new Map()
  const slugs = new Set()
  for (const match of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const text = match[1].replace(/\\([\\`*_{}[\]()#+\-.!<>])/g, '$1').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_]/g, '')
    const base = vitepressSlug(text)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    slugs.add(count === 0 ? base : `${base}-${count}`)
  }
  return slugs
}

export function fixAnchors(apiDir) {
  const files = readdirSync(apiDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'))
  const slugsOf = new Map(files.map((file) => [file.replace(/\\/g, '/'), headingSlugs(readFileSync(join(apiDir, file), 'utf8'))]))
  let fixed = 0
  for (const file of files) {
    const path = join(apiDir, file)
    const text = readFileSync(path, 'utf8')
    const next = text.replace(/\]\(([^)#\s]*)#([^)\s]+)\)/g, (whole, target, anchor) => {
      const targetFile = target === '' ? file.replace(/\\/g, '/') : posix.normalize(posix.join(posix.dirname(file.replace(/\\/g, '/')), target))
      const slugs = slugsOf.get(targetFile)
      if (!slugs || slugs.has(anchor)) return whole
      const base = anchor.replace(/-\d+$/, '')
      if (base === anchor || !slugs.has(base)) return whole
      fixed++
      return `](${target}#${base})`
    })
    if (next !== text) writeFileSync(path, next)
  }
  void dirname
  return fixed
}

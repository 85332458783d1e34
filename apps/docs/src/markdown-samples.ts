// Extracts the TypeScript code samples from the site's Markdown pages, so the docs test can type-check them against
// the workspace sources and execute the runnable ones. A fence's info string says what a sample is:
//   ```ts           type-checked
//   ```ts run       type-checked, then executed offline (node + tsx, in a fresh temporary directory)
//   ```ts foreign   another framework's code (the "coming from" page): shown, not checked, since that framework is not installed
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

export interface CodeSample {
  /** The page, relative to the site folder (`guides/testing.md`). */
  page: string
  /** The 1-based line of the opening fence. */
  line: number
  /** A file-name-safe id, unique across the site (`guides-testing-2`). */
  id: string
  code: string
  run: boolean
}

/** Pages written by scripts/prepare.mjs from files whose samples are checked elsewhere (docs/plugins.md). */
const generatedPages = ['guides/plugin-guide.md']

const typescriptLanguages = new Set(['ts', 'typescript', 'tsx', 'mts'])

/** Every Markdown page under `siteDir` except the generated API reference. */
export function markdownPages(siteDir: string): string[] {
  return (readdirSync(siteDir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => file.endsWith('.md') && !file.startsWith('api/') && !file.includes('node_modules') && !file.startsWith('.vitepress'))
    .filter((file) => !generatedPages.includes(file.replace(/\\/g, '/')))
    .sort()
}

export function extractSamples(siteDir: string): CodeSample[] {
  const samples: CodeSample[] = []
  for (const page of markdownPages(siteDir)) {
    const lines = readFileSync(join(siteDir, page), 'utf8').split('\n')
    let index = 0
    for (let i = 0; i < lines.length; i++) {
      const open = /^(\s*)(`{3,})(\S*)(.*)$/.exec(lines[i]!)
      if (!open) continue
      const [, indent, fence, language, meta] = open
      const end = lines.findIndex((line, j) => j > i && line.trimEnd() === `${indent}${fence}`)
      if (end < 0) throw new Error(`${page}:${i + 1}: a code fence is never closed`)
      const words = meta!.trim().split(/\s+/)
      if (typescriptLanguages.has(language!) && !words.includes('foreign')) {
        const code = lines
          .slice(i + 1, end)
          .map((line) => line.slice(indent!.length))
          .join('\n')
        samples.push({
          page: relative('.', page),
          line: i + 1,
          id: `${page.replace(/\.md$/, '').replace(/[^a-zA-Z0-9]+/g, '-')}-${++index}`,
          code,
          run: words.includes('run'),
        })
      }
      i = end
    }
  }
  return samples
}

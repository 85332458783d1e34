// Everything generated before `vitepress build` or `vitepress dev`: the API reference (TypeDoc), the benchmark
// plots (SVG from bench/results) and the screenshots (taken by the e2e tests of the playground and examples/react-chat).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateApiReference } from './api.mjs'
import { writeBenchPlots } from './bench-plots.mjs'
import { repoRoot } from './entry-points.mjs'

const site = join(dirname(fileURLToPath(import.meta.url)), '../site')

export async function prepareSite() {
  writeBenchPlots(join(site, 'public/plots'))
  const screenshots = join(site, 'public/screenshots')
  mkdirSync(screenshots, { recursive: true })
  for (const file of readdirSync(join(repoRoot, 'docs/screenshots'))) {
    if (file.endsWith('.png')) cpSync(join(repoRoot, 'docs/screenshots', file), join(screenshots, file))
  }
  // The playground debugger's screenshots (taken by its e2e tests) and the react-chat example's.
  const playgroundShots = join(repoRoot, 'apps/playground/screenshots')
  mkdirSync(join(screenshots, 'playground'), { recursive: true })
  for (const file of readdirSync(playgroundShots)) {
    if (file.endsWith('.png')) cpSync(join(playgroundShots, file), join(screenshots, 'playground', file))
  }
  cpSync(join(repoRoot, 'examples/react-chat/screenshot.png'), join(screenshots, 'react-chat.png'))
  writePluginGuide()
  const { undocumented } = await generateApiReference()
  return { undocumented, screenshots: readdirSync(screenshots) }
}

/** Generated pages: not sources of samples (the plugin guide's are compiled by examples/plugin-guide.test.ts). */
export const generatedPages = ['guides/plugin-guide.md']

/**
 * Renders docs/plugins.md (the guide stays there, where the repository links to it) as the site page
 * /guides/plugin-guide. Its links into the repository (examples, packages) name the path instead, since the
 * site does not serve those files.
 */
export function writePluginGuide() {
  const source = readFileSync(join(repoRoot, 'docs/plugins.md'), 'utf8')
  const page = source.replace(/\[([^\]]+)\]\((?!https?:|#|mailto:)([^)\s]+)\)/g, (_whole, text, target) => {
    const path = posix.normalize(posix.join('docs', target.split('#')[0]))
    return text.replace(/`/g, '') === path ? `${text} (in the repository)` : `${text} (\`${path}\` in the repository)`
  })
  const header = '<!-- Generated from docs/plugins.md by apps/docs/scripts/prepare.mjs: edit that file. -->\n\n'
  writeFileSync(join(site, 'guides/plugin-guide.md'), header + page)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { undocumented } = await prepareSite()
  console.log(`[spindle/docs] site prepared; ${undocumented.length} public exports lack TSDoc (site/api/undocumented.json)`)
  if (!existsSync(join(site, 'api/index.md'))) process.exit(1)
}

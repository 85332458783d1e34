// The public entry points of every published package, read from each package.json's `exports`
// (the `@spindle/source` condition), so a new subpath such as `@spindle/core/plugin-kit` is picked up by itself.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..')

function packageDirs() {
  const dirs = []
  for (const entry of readdirSync(join(repoRoot, 'packages'), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const dir = join(repoRoot, 'packages', entry.name)
    if (existsSync(join(dir, 'package.json'))) dirs.push(dir)
    else for (const nested of readdirSync(dir, { withFileTypes: true })) {
      if (nested.isDirectory() && existsSync(join(dir, nested.name, 'package.json'))) dirs.push(join(dir, nested.name))
    }
  }
  return dirs.sort()
}

/** Every public entry: `{ specifier: '@spindle/core/plugin-kit', file: '/abs/src/plugin-kit/index.ts', packageName, packageDir }`. */
export function publicEntryPoints() {
  const entries = []
  for (const dir of packageDirs()) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    if (manifest.private) continue
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = typeof target === 'object' && target ? target['@spindle/source'] : undefined
      if (!source) continue
      const file = join(dir, source)
      if (!existsSync(file)) continue
      entries.push({ specifier: subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`, file, packageName: manifest.name, packageDir: dir })
    }
  }
  return entries
}

// One vitest project per workspace package; tests run from source through the
// `@spindle/source` export condition, so `pnpm test` needs no build.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

const root = import.meta.dirname
const folders = ['packages', 'apps']
const packageDirs: string[] = ['examples', 'bench']
for (const folder of folders) {
  for (const entry of safeList(join(root, folder))) {
    const dir = join(folder, entry)
    if (existsSync(join(root, dir, 'package.json'))) packageDirs.push(dir)
    else
      for (const nested of safeList(join(root, dir))) {
        if (existsSync(join(root, dir, nested, 'package.json'))) packageDirs.push(join(dir, nested))
      }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
  } catch {
    return []
  }
}

function hasTypeTests(dir: string): boolean {
  // A walk that never enters node_modules: a recursive readdir follows pnpm's symlinks through every dependency
  // (100,000+ entries for a package with a few dev dependencies), and this runs for every project at each start.
  const walk = (folder: string): boolean =>
    readdirSync(folder, { withFileTypes: true }).some((entry) =>
      entry.isDirectory()
        ? entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.') && walk(join(folder, entry.name))
        : entry.name.endsWith('.test-d.ts'),
    )
  try {
    return walk(dir)
  } catch {
    return false
  }
}

function projectName(dir: string): string {
  try {
    return JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name ?? dir
  } catch {
    return dir
  }
}

export default defineConfig({
  // Only the source condition: Node receives these for external packages too, and 'import' there breaks CJS
  // packages (pg requiring pg-pool would get its ES module).
  resolve: { conditions: ['@spindle/source'] },
  ssr: { resolve: { conditions: ['@spindle/source'] } },
  test: {
    projects: packageDirs
      .filter((dir) => existsSync(join(root, dir)))
      .map((dir) => ({
        extends: true,
        test: {
          name: projectName(dir),
          root: join(root, dir),
          include: ['**/*.test.ts', '**/*.test.tsx'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          // Type tests only where a package has them, so no project pays for a type check it does not use.
          typecheck: { enabled: hasTypeTests(join(root, dir)), include: ['**/*.test-d.ts'], tsconfig: join(root, 'tsconfig.test.json') },
        },
      })),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})

// The size limit of the repository's source files (CONVENTIONS.md: around 300 lines is a signal to split, 400 the
// limit): no non-test TypeScript file under packages/, apps/, examples/, bench/ or release/ may exceed 400 lines.
// Generated and vendored folders are left out: node_modules, dist, coverage, __fixtures__, bench/results and every
// dot-folder (the docs' extracted samples, VitePress's cache and output).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repositoryRoot = resolve(fileURLToPath(new URL('../../../..', import.meta.url)))
const sourceRoots = ['packages', 'apps', 'examples', 'bench', 'release']
const skippedFolders = new Set(['node_modules', 'dist', 'coverage', '__fixtures__'])
const maxLines = 400

function isSourceFile(name: string): boolean {
  return /\.tsx?$/.test(name) && !/\.(test|test-d)\.tsx?$/.test(name) && !name.endsWith('.d.ts')
}

function sourceFiles(directory: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) {
      if (skippedFolders.has(entry.name) || entry.name.startsWith('.') || relative(repositoryRoot, path) === join('bench', 'results')) continue
      files.push(...sourceFiles(path))
    } else if (entry.isFile() && isSourceFile(entry.name)) files.push(path)
  }
  return files
}

/** Lines as `wc -l` counts them: newline characters (a last line without one still counts). */
function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1
  return text.endsWith('\n') || text.length === 0 ? newlines : newlines + 1
}

describe('source file size', () => {
  const files = sourceRoots.flatMap((folder) => sourceFiles(join(repositoryRoot, folder)))

  it('finds the repository sources (the walk reaches the core and the other packages)', () => {
    const paths = files.map((file) => relative(repositoryRoot, file))
    expect(paths).toContain(join('packages', 'core', 'src', 'runtime', 'run-execution.ts'))
    expect(paths).toContain(join('apps', 'playground', 'src', 'server', 'run-manager.ts'))
    expect(paths.some((path) => path.endsWith('.test.ts'))).toBe(false)
  })

  it(`keeps every non-test source file within ${maxLines} lines (split along a seam: one concept per file)`, () => {
    const oversized = files
      .map((file) => ({ file: relative(repositoryRoot, file), lines: lineCount(readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > maxLines)
      .sort((a, b) => b.lines - a.lines)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
    expect(oversized).toEqual([])
  })
})

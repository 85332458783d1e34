// docs/plugins.md stays true: every ```ts block is type-checked against the workspace sources (through the
// `@spindle/source` condition), so an API change that breaks a sample fails here.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { expect, it } from 'vitest'

const repo = join(import.meta.dirname, '..')
const guide = readFileSync(join(repo, 'docs/plugins.md'), 'utf8')

/** The TypeScript blocks of a markdown text, with the line each starts at. */
export function typescriptBlocks(markdown: string): Array<{ code: string; line: number }> {
  const blocks: Array<{ code: string; line: number }> = []
  const fence = /^```(ts|typescript)\s*\n([\s\S]*?)^```\s*$/gm
  for (const match of markdown.matchAll(fence)) blocks.push({ code: match[2]!, line: markdown.slice(0, match.index).split('\n').length + 1 })
  return blocks
}

it('extracts the samples of the guide', () => {
  expect(typescriptBlocks('text\n```ts\nconst a = 1\n```\n```json\n{}\n```\n')).toEqual([{ code: 'const a = 1\n', line: 3 }])
  expect(typescriptBlocks(guide).length).toBeGreaterThanOrEqual(8)
})

it('every TypeScript sample of docs/plugins.md type-checks', () => {
  const blocks = typescriptBlocks(guide)
  // Virtual files beside this test, so `@spindle/core` and `@spindle/testing` resolve as for an example.
  const files = new Map(blocks.map((block, index) => [join(import.meta.dirname, '.plugin-guide', `sample-${index + 1}.ts`), block]))
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@spindle/source'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    types: ['node'],
    allowImportingTsExtensions: true,
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.fileExists = (file) => files.has(file) || ts.sys.fileExists(file)
  host.readFile = (file) => files.get(file)?.code ?? readFile(file)
  host.getSourceFile = (file, language, onError, create) => {
    const block = files.get(file)
    return block ? ts.createSourceFile(file, block.code, language, true) : getSourceFile(file, language, onError, create)
  }
  const program = ts.createProgram([...files.keys()], options, host)
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file === undefined || files.has(diagnostic.file.fileName))
    .map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
      if (!diagnostic.file || diagnostic.start === undefined) return message
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      return `docs/plugins.md:${files.get(diagnostic.file.fileName)!.line + line}: ${message}`
    })
  expect(problems).toEqual([])
}, 120_000)

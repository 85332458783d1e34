// Type-checks the extracted samples against the workspace sources (the `@spindle/source` condition) and runs the
// runnable ones, each in its own Node process with a fresh working directory.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import type { CodeSample } from './markdown-samples.js'

/** Writes each sample as `<dir>/<id>.ts` (a module, so top-level await works) and returns the paths by id. */
export function writeSamples(samples: CodeSample[], dir: string): Map<string, string> {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const files = new Map<string, string>()
  for (const sample of samples) {
    const file = join(dir, `${sample.id}.ts`)
    const isModule = /^\s*(import|export)\s/m.test(sample.code)
    writeFileSync(file, `${sample.code}\n${isModule ? '' : 'export {}\n'}`)
    files.set(sample.id, file)
  }
  return files
}

/** Type errors, each as `page:line: message` (the line inside the page). */
export function typeCheckSamples(samples: CodeSample[], files: Map<string, string>): string[] {
  const program = ts.createProgram([...files.values()], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@spindle/source'],
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
  })
  const byFile = new Map([...files].map(([id, file]) => [file, samples.find((sample) => sample.id === id)!]))
  const errors: string[] = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (diagnostic) => `(options): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
  )
  // Only the samples' own diagnostics: the packages are type-checked by their own builds (`pnpm typecheck`), and
  // checking only these files skips the bodies of every workspace source.
  for (const [file, sample] of byFile) {
    const sourceFile = program.getSourceFile(file)
    if (!sourceFile) {
      errors.push(`${sample.page}:${sample.line}: the sample was not compiled`)
      continue
    }
    for (const diagnostic of [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)]) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
      errors.push(`${sample.page}:${sample.line + 1 + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`)
    }
  }
  return errors
}

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href

/** Runs one sample offline; resolves with its output, rejects with it (and the exit code) when it fails. */
export function runSample(file: string, timeoutMs = 60_000): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'spindle-docs-sample-'))
  const env = { ...process.env, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', NODE_OPTIONS: '' }
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--conditions=@spindle/source', '--import', tsxLoader, file], { cwd, env, timeout: timeoutMs }, (error, stdout, stderr) => {
      rmSync(cwd, { recursive: true, force: true })
      if (error) reject(new Error(`${file} failed (${error.code ?? error.signal}):\n${stdout}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

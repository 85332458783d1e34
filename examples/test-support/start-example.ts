// Runs one of the examples in a process of its own, as `pnpm demo:durable` would, for the tests that kill it.
import { spawn } from 'node:child_process'
import { join } from 'node:path'

export interface ExampleExit {
  output: string
  code: number | null
  signal: NodeJS.Signals | null
}

/** Runs `examples/<script>` with `env` added; `killWhen` SIGKILLs it as soon as its output (stdout and stderr) matches. */
export function startExample(script: string, env: Record<string, string>, killWhen?: RegExp): Promise<ExampleExit> {
  const examples = join(import.meta.dirname, '..')
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', join(examples, script)], {
    cwd: examples,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (data: string) => {
    output += data
    if (killWhen?.test(output)) child.kill('SIGKILL')
  })
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ output, code, signal })))
}

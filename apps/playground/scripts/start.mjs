// `pnpm playground`: builds the web UI when it is missing or older than its sources, then starts the server
// (TypeScript from source through tsx, with the workspace's `@spindle/source` export condition).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const appRoot = join(import.meta.dirname, '..')
const built = join(appRoot, 'dist', 'web', 'index.html')

function newest(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

export async function buildWebIfNeeded() {
  const sources = Math.max(newest(join(appRoot, 'src', 'web')), newest(join(appRoot, 'vite.config.ts')))
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return false
  console.log('Building the web UI…')
  const { build } = await import('vite')
  await build({ root: join(appRoot, 'src', 'web'), configFile: join(appRoot, 'vite.config.ts'), logLevel: 'warn' })
  return true
}

if (process.argv[1] === import.meta.filename) {
  await buildWebIfNeeded()
  const child = spawn(process.execPath, ['--conditions=@spindle/source', '--import', 'tsx', join(appRoot, 'src', 'main.ts')], { stdio: 'inherit', cwd: appRoot })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code) => process.exit(code ?? 0))
}

// Builds the site the way `pnpm docs:build` does (prepare: API reference, plots, screenshots; then `vitepress build`),
// in child processes so VitePress's own Vite never shares a process with the test runner's.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..')
export const siteDir = join(docsDir, 'site')
export const distDir = join(siteDir, '.vitepress/dist')

function node(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: docsDir, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`node ${args.join(' ')} failed:\n${stdout}\n${stderr}`))
        else resolve(`${stdout}${stderr}`)
      },
    )
  })
}

export async function buildSite(): Promise<string> {
  const vitepress = join(dirname(createRequire(import.meta.url).resolve('vitepress/package.json')), 'bin/vitepress.js')
  const prepared = await node(['scripts/prepare.mjs'])
  const built = await node([vitepress, 'build', 'site'])
  return `${prepared}${built}`
}

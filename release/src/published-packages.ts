// The workspace packages that are published (every package.json under packages/ that is not private), packed the way
// `pnpm publish` packs them (workspace: ranges rewritten), with their manifests read back from the tarballs.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The repository root. */
export const repositoryRoot = join(import.meta.dirname, '..', '..')

/** A publishable workspace package. */
export interface PublishedPackage {
  name: string
  version: string
  /** Absolute path of its folder. */
  dir: string
  manifest: Record<string, any>
}

/** A package packed into a tarball, with the manifest and file list the registry will serve. */
export interface PackedPackage extends PublishedPackage {
  tarball: string
  files: string[]
  packedManifest: Record<string, any>
}

/** Every non-private package under packages/ (one or two folders deep), sorted by name. */
export function publishedPackages(): PublishedPackage[] {
  const found: PublishedPackage[] = []
  const visit = (dir: string, depth: number): void => {
    const manifestPath = join(dir, 'package.json')
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
      if (!manifest.private) found.push({ name: manifest.name, version: manifest.version, dir, manifest })
      return
    }
    if (depth === 0) return
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules') visit(join(dir, entry.name), depth - 1)
    }
  }
  visit(join(repositoryRoot, 'packages'), 2)
  return found.sort((a, b) => a.name.localeCompare(b.name))
}

/**
 * Packs every published package with one `pnpm -r pack` into `destination` (pnpm rewrites `workspace:` ranges as
 * `pnpm publish` does) and writes the list to `destination/packed.json`. Fails when a package is not built.
 */
export function packAll(destination: string): PackedPackage[] {
  const packages = publishedPackages()
  for (const pkg of packages) {
    if (!existsSync(join(pkg.dir, 'dist', 'index.js'))) {
      throw new Error(`${pkg.name} is not built (no ${shortPath(pkg.dir)}/dist/index.js): run pnpm build first (pnpm release:check does)`)
    }
  }
  mkdirSync(destination, { recursive: true })
  const output = execFileSync('pnpm', ['-r', '--filter', './packages/**', 'pack', '--pack-destination', destination, '--json'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
  const results = JSON.parse(output) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>
  const packed = packages.map((pkg): PackedPackage => {
    const result = results.find((entry) => entry.name === pkg.name)
    if (!result) throw new Error(`pnpm pack did not pack ${pkg.name}`)
    const packedManifest = JSON.parse(execFileSync('tar', ['-xzOf', result.filename, 'package/package.json'], { encoding: 'utf8' }))
    return { ...pkg, tarball: result.filename, files: result.files.map((file) => file.path), packedManifest }
  })
  writeFileSync(join(destination, 'packed.json'), JSON.stringify(packed))
  return packed
}

/** The packages `packAll` packed into `destination`. */
export function readPacked(destination: string): PackedPackage[] {
  return JSON.parse(readFileSync(join(destination, 'packed.json'), 'utf8')) as PackedPackage[]
}

/** `dir` relative to the repository root, for messages. */
export function shortPath(dir: string): string {
  return relative(repositoryRoot, dir)
}

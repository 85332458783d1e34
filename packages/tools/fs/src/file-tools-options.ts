// Options shared by every file tool, normalized once by `fileTools()`.
import { realpathSync, statSync } from 'node:fs'
import { ConfigurationError } from '@spindle/core'
import { detectRaceFree, type Confinement } from './pinned-directory.js'

/** Options of `fileTools()` / `fileToolSet()`: the root every path is confined to, size and count limits, and whether writes are allowed and need approval. */
export interface FileToolsOptions {
  /** The directory every path is confined to; it must exist. */
  root: string
  /** Largest number of bytes `read_file` returns in one call (default 1 MiB). */
  maxReadBytes?: number
  /** Largest file `write_file` / `patch_file` may produce (default 1 MiB). */
  maxWriteBytes?: number
  /** When false, `write_file` and `patch_file` refuse every call and `fileToolSet` leaves them out (default true). */
  allowWrite?: boolean
  /** Whether the write tools ask a human before running (default true). */
  writeNeedsApproval?: boolean
  /** Most entries `list_files` returns (default 1000). */
  maxListEntries?: number
  /** Most matches `search_files` returns (default 100). */
  maxSearchResults?: number
  /** Most files `search_files` opens in one call (default 5000). */
  maxSearchFiles?: number
}

export interface ResolvedFileToolsOptions extends Confinement {
  maxReadBytes: number
  maxWriteBytes: number
  allowWrite: boolean
  writeNeedsApproval: boolean
  maxListEntries: number
  maxSearchResults: number
  maxSearchFiles: number
}

export function resolveFileToolsOptions(options: FileToolsOptions): ResolvedFileToolsOptions {
  if (!options || typeof options.root !== 'string' || options.root.length === 0) {
    throw new ConfigurationError('[spindle/tools-fs] fileTools needs a `root` directory, e.g. fileTools({ root: "./workspace" })')
  }
  let root: string
  try {
    root = realpathSync(options.root)
  } catch (error) {
    throw new ConfigurationError(`[spindle/tools-fs] the root "${options.root}" does not exist; create it before building the file tools`, { cause: error })
  }
  if (!statSync(root).isDirectory()) throw new ConfigurationError(`[spindle/tools-fs] the root "${options.root}" is not a directory`)
  return {
    root,
    raceFree: detectRaceFree(root),
    maxReadBytes: positive('maxReadBytes', options.maxReadBytes, 1024 * 1024),
    maxWriteBytes: positive('maxWriteBytes', options.maxWriteBytes, 1024 * 1024),
    allowWrite: options.allowWrite ?? true,
    writeNeedsApproval: options.writeNeedsApproval ?? true,
    maxListEntries: positive('maxListEntries', options.maxListEntries, 1000),
    maxSearchResults: positive('maxSearchResults', options.maxSearchResults, 100),
    maxSearchFiles: positive('maxSearchFiles', options.maxSearchFiles, 5000),
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value <= 0) throw new ConfigurationError(`[spindle/tools-fs] ${name} must be a positive integer (got ${value})`)
  return value
}

// The two confinement modes every file-tool test runs in, for the package's test files (excluded from the build).
import { createFileTools } from '../file-tools.js'
import { resolveFileToolsOptions } from '../file-tools-options.js'
import { fileTools, type FileTools, type FileToolsOptions } from '../index.js'

/**
 * On Linux each case runs twice: with the race-free confinement (/proc/self/fd) and with the best-effort fallback
 * used where /proc is missing, so both behave the same.
 */
export const fileToolModes: Array<{ mode: string; make: (options: FileToolsOptions) => FileTools }> = [
  { mode: 'race-free where available', make: fileTools },
  { mode: 'best-effort fallback', make: (options) => createFileTools({ ...resolveFileToolsOptions(options), raceFree: false }) },
]

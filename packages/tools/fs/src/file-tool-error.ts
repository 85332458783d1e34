// The one error class of @spindle/tools-fs: a stable code per refusal, a message the model can act on.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'
import { hasErrorMarker } from '@spindle/core/plugin-kit'

const marker = Symbol.for('spindle.error.tools_fs')

/** Why a file tool refused or failed (`fs_invalid_path`, `fs_outside_root`, `fs_not_found`…), as `FileToolError.code`. */
export type FileToolErrorCode =
  | 'fs_invalid_path'
  | 'fs_outside_root'
  | 'fs_not_found'
  | 'fs_not_a_file'
  | 'fs_not_a_directory'
  | 'fs_too_large'
  | 'fs_not_utf8'
  | 'fs_write_disabled'
  | 'fs_patch_not_found'
  | 'fs_patch_ambiguous'
  | 'fs_io'

/** Thrown by the file tools; the kernel returns its message to the model as a tool error. */
export class FileToolError extends SpindleError {
  readonly [marker] = true
  constructor(code: FileToolErrorCode, message: string, options?: SpindleErrorOptions) {
    super(code, `[spindle/tools-fs] ${message}`, options)
    this.name = 'FileToolError'
  }

  /** True for a FileToolError from any copy of this package. */
  static override isInstance(value: unknown): value is FileToolError {
    return hasErrorMarker(value, marker)
  }
}

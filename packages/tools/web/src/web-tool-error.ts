// The one error class of @spindle/tools-web: a stable code per refusal, a message the model can act on.
import { SpindleError, type SpindleErrorOptions } from '@spindle/core'
import { hasErrorMarker } from '@spindle/core/plugin-kit'

const marker = Symbol.for('spindle.error.tools_web')

/** Why a web tool refused or failed (`web_invalid_url`, `web_scheme_not_allowed`, `web_host_not_allowed`…), as `WebToolError.code`. */
export type WebToolErrorCode =
  | 'web_invalid_url'
  | 'web_scheme_not_allowed'
  | 'web_host_not_allowed'
  | 'web_address_blocked'
  | 'web_dns_failed'
  | 'web_too_many_redirects'
  | 'web_too_large'
  | 'web_timeout'
  | 'web_aborted'
  | 'web_request_failed'
  | 'web_method_not_allowed'

/** Thrown by the web tools; the kernel returns its message to the model as a tool error. */
export class WebToolError extends SpindleError {
  readonly [marker] = true
  constructor(code: WebToolErrorCode, message: string, options?: SpindleErrorOptions) {
    super(code, `[spindle/tools-web] ${message}`, options)
    this.name = 'WebToolError'
  }

  /** True for a WebToolError from any copy of this package. */
  static override isInstance(value: unknown): value is WebToolError {
    return hasErrorMarker(value, marker)
  }
}

// Which request headers may follow a redirect to another origin, and which operator headers need allowHosts.
// Every header the operator configures is treated as a secret unless it is declared public: a name does not tell
// whether a value is a credential (`X-Session-Id`, `X-Signature` and JWT assertion headers carry one too).
import { ConfigurationError } from '@spindle/core'
import { credentialHeaderValues } from '@spindle/core/plugin-kit'

/** Whether a header's name says it carries a credential (`authorization`, cookies, `x-api-key`, `x-auth-token`…). */
export function isCredentialHeader(name: string): boolean {
  return credentialHeaderValues({ [name]: '' }).length > 0
}

/** The operator's header policy, resolved once at tool creation. */
export interface OperatorHeaderPolicy {
  /** Lower-cased names of the operator's headers that are secret (every one not declared public). */
  readonly secret: ReadonlySet<string>
}

/**
 * Resolves `headers` and `publicHeaders`: each operator header is secret unless `publicHeaders` names it; a secret
 * header needs `allowHosts` (without it the model chooses the host, and a prompt injection could have the value
 * sent to its own server). A credential-named header cannot be declared public.
 */
export function resolveOperatorHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  publicHeaders: readonly string[] | undefined,
  allowHosts: readonly string[] | undefined,
): OperatorHeaderPolicy {
  const declaredPublic = new Set<string>()
  for (const name of publicHeaders ?? []) {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new ConfigurationError(`[spindle/tools-web] publicHeaders must list header names (got ${JSON.stringify(name)})`)
    }
    if (isCredentialHeader(name)) {
      throw new ConfigurationError(
        `[spindle/tools-web] publicHeaders lists "${name}", whose name says it carries a credential; a credential is never sent to another origin: remove it from publicHeaders`,
      )
    }
    declaredPublic.add(name.trim().toLowerCase())
  }
  const secretNames = Object.keys(headers ?? {}).filter((name) => !declaredPublic.has(name.toLowerCase()))
  if (secretNames.length && allowHosts === undefined) {
    throw new ConfigurationError(
      `[spindle/tools-web] headers carries ${secretNames.join(', ')}, not declared public, but allowHosts is not set, so the model could send it to any host; list the hosts it is for in allowHosts, or name the header in publicHeaders if its value is no secret`,
    )
  }
  return { secret: new Set(secretNames.map((name) => name.toLowerCase())) }
}

/**
 * The headers that may follow a redirect to another origin: without the operator's secret headers and without any
 * credential-named header (the caller's `Authorization`, cookies, keys and tokens).
 */
export function crossOriginHeaders(headers: Readonly<Record<string, string>>, policy: OperatorHeaderPolicy): Record<string, string> {
  const copy: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!policy.secret.has(name) && !isCredentialHeader(name)) copy[name] = value
  }
  return copy
}

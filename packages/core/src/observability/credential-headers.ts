// Which request values are secrets for a provider to scrub from its errors: the API key and credential-bearing
// headers (Azure's `api-key`, gateway tokens, `Authorization`, cookies), which a server may echo in an error body.

/** Header names whose values are credentials (case-insensitive). */
const credentialHeaderName = /key|token|secret|auth|cookie|password|credential/i

/**
 * The values of the credential-bearing headers among `headers`, plus the parts a server may echo on
 * their own: the credentials after an `Authorization` scheme (`Bearer <token>`) and each cookie's value.
 *
 * @example
 * credentialHeaderValues({ 'api-key': 'azure-key-123', 'x-team': 'spindle' }) // ['azure-key-123']
 */
export function credentialHeaderValues(headers: Readonly<Record<string, string | null | undefined>> | undefined): string[] {
  if (!headers) return []
  const values: string[] = []
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string' || !credentialHeaderName.test(name)) continue
    const trimmed = value.trim()
    values.push(trimmed)
    if (/authorization$/i.test(name)) {
      const credentials = /^\S+\s+(\S.*)$/.exec(trimmed)?.[1]
      if (credentials) values.push(credentials.trim())
    }
    if (/cookie/i.test(name)) {
      for (const pair of trimmed.split(';')) {
        const equals = pair.indexOf('=')
        if (equals > 0) values.push(pair.slice(equals + 1).trim())
      }
    }
  }
  return values
}

/**
 * The secrets of one call: the API key and the credential header values given at provider creation and
 * per call, longest first (so a whole `Bearer <token>` is scrubbed before the token inside it), without duplicates.
 */
export function requestSecrets(apiKey: string | undefined, ...headerSets: Array<Readonly<Record<string, string>> | undefined>): string[] {
  const secrets = new Set<string>()
  if (apiKey) secrets.add(apiKey)
  for (const headers of headerSets) for (const value of credentialHeaderValues(headers)) if (value) secrets.add(value)
  return [...secrets].sort((a, b) => b.length - a.length)
}

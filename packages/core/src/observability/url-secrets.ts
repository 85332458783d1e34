// The secrets a URL may carry (a provider's base URL), to scrub from errors like an API key: its userinfo
// (`user:password@`, which fetch itself quotes when it refuses such a URL) and credential-named query values (`?key=…`).
import { credentialHeaderValues } from './credential-headers.js'

/**
 * The secrets in `url`, each as given, percent-encoded and decoded (a server may echo either form); none for an
 * absent or unparsable URL. Providers add them to the secrets their errors are scrubbed of.
 *
 * @example
 * urlSecrets('https://proxy:pa55word@gateway.example/v1?api_key=k-123456') // ['proxy:pa55word', 'proxy%3Apa55word', 'pa55word', 'k-123456']
 */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return []
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return []
  }
  const secrets = new Set<string>()
  const add = (value: string) => {
    if (!value) return
    // As given, decoded and encoded: a server may echo either form.
    secrets.add(value)
    secrets.add(encodeURIComponent(value))
    try {
      secrets.add(decodeURIComponent(value))
    } catch {
      // Not percent-encoded: the raw value is enough.
    }
  }
  // With a password, the user name is usually just a name; alone, it is often a token (`https://<token>@host`).
  if (parsed.password) {
    add(`${parsed.username}:${parsed.password}`)
    add(parsed.password)
  } else add(parsed.username)
  const query: Record<string, string> = {}
  for (const [name, value] of parsed.searchParams) query[name] = value
  for (const value of credentialHeaderValues(query)) add(value)
  return [...secrets]
}

// `providerOptions.openai` (or `.<name>`) merged into the API parameters the provider built, so an
// option like `{ reasoning: { effort: 'high' } }` adds to the defaults (`reasoning.summary`) instead of erasing them.
import { ConfigurationError, type JsonValue } from '@spindle/core'

type Plain = Record<string, unknown>

/**
 * Merges `options` into `params` in place. Nested plain objects merge key by key (the user's value
 * wins); arrays are the union of the provider's entries and the user's (the provider's first, exact
 * duplicates dropped), so adding an `include` entry keeps `reasoning.encrypted_content`, which
 * stateless reasoning needs; any other value (`null` included) replaces the provider's.
 */
export function mergeProviderOptions<Params extends object>(params: Params, options: JsonValue, provider: string): Params {
  if (!isPlainObject(options)) {
    throw new ConfigurationError(
      `[spindle/${provider}] providerOptions.${provider} must be an object of API parameters, e.g. { reasoning: { effort: 'high' } }`,
    )
  }
  mergeInto(params as Plain, options)
  return params
}

function mergeInto(target: Plain, source: Plain): void {
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined) continue
    const current = target[key]
    if (isPlainObject(current) && isPlainObject(value)) {
      const copy = { ...current }
      mergeInto(copy, value)
      target[key] = copy
    } else if (Array.isArray(current) && Array.isArray(value)) {
      const merged = [...current]
      const seen = new Set(current.map((entry) => JSON.stringify(entry)))
      for (const entry of value) {
        const identity = JSON.stringify(entry)
        if (seen.has(identity)) continue
        seen.add(identity)
        merged.push(entry)
      }
      target[key] = merged
    } else target[key] = value
  }
}

function isPlainObject(value: unknown): value is Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

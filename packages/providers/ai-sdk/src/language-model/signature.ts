// Reasoning signatures round trip: an AI SDK model reports them as provider metadata (`{ anthropic: { signature } }`,
// `{ google: { thoughtSignature } }`…); Spindle stores one opaque string, sent back unchanged on the next call.
import type { SharedV3ProviderMetadata, SharedV3ProviderOptions } from '@ai-sdk/provider'

const marker = 'ai-sdk:v1:'

/** The opaque signature Spindle keeps for a reasoning block's provider metadata. */
export function encodeReasoningMetadata(metadata: SharedV3ProviderMetadata): string {
  return marker + JSON.stringify(metadata)
}

/**
 * The provider options to send a reasoning block back with. A signature written by another Spindle provider (no
 * marker: Anthropic's raw thinking signature) goes under the model's provider key as `signature`, a redacted
 * payload as `redactedData`, which is what `@ai-sdk/anthropic` reads.
 */
export function reasoningProviderOptions(
  providerKey: string,
  signature: string | undefined,
  redacted: string | undefined,
): SharedV3ProviderOptions | undefined {
  if (signature?.startsWith(marker)) {
    try {
      return JSON.parse(signature.slice(marker.length)) as SharedV3ProviderOptions
    } catch {
      return undefined
    }
  }
  if (signature === undefined && redacted === undefined) return undefined
  return { [providerKey]: { ...(signature !== undefined && { signature }), ...(redacted !== undefined && { redactedData: redacted }) } }
}

/** Merges provider metadata seen on a block's start, deltas and end (later keys win). */
export function mergeMetadata(into: SharedV3ProviderMetadata | undefined, next: SharedV3ProviderMetadata | undefined): SharedV3ProviderMetadata | undefined {
  if (next === undefined) return into
  if (into === undefined) return { ...next }
  for (const [key, value] of Object.entries(next)) into[key] = { ...into[key], ...value }
  return into
}

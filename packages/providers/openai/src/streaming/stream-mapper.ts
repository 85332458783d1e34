// The contract between the stream driver and a protocol's event mapper.
import type { StreamPart } from '@spindle/core'

/** Maps one API's stream events to Spindle parts; a fresh mapper is made per attempt. */
export interface StreamMapper<Event> {
  /** Parts for one event; throws a ProviderError for an in-band failure. */
  map(event: Event): StreamPart[]
  /** Called when the SDK stream ended: the final parts, or a StreamInterruptedError when no terminal event came. */
  end(): StreamPart[]
}

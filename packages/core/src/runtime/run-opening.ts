// What an execution does first (a start appends its input, a resume replays what followed its snapshot).
import type { AgentEventPayload } from '../spec/events.js'
import type { ModelMessage } from '../spec/messages.js'
import type { SessionEntry } from '../spec/session-store.js'

/**
 * What the execution does first, inside the same guard as its loop (a failure there ends the run like any other):
 * the events that open it, the input to append (then a checkpoint), or the entries to roll the state over.
 */
export interface RunOpening {
  events: AgentEventPayload[]
  /** The run's input, appended and checkpointed (a start, or a run that died before its input reached the session). */
  input?: ModelMessage[]
  /** Entries the run wrote after its snapshot (a resume), then the interrupted step announced if `announce`. */
  replay?: { entries: SessionEntry[]; announce: boolean }
}

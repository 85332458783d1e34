// The one place the playground mints session ids: `ses_` + a UUID, the scheme the kernel uses for the sessions it creates.
import { randomUUID } from 'node:crypto'

/** A new session id (`ses_…`), for sessions made by a first message, by `POST /sessions` and by a fork. */
export function newSessionId(): string {
  return `ses_${randomUUID()}`
}

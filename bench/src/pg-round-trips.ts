// Counts what a pg Pool's connections send: statements (an extended-protocol Sync or a simple query) and round
// trips (a send on an idle connection, or after a reply arrived since the last send: pipelined statements written
// together before any reply count once).

/** Statements and round trips counted so far; reset them between measurements. */
export interface WireCount {
  statements: number
  roundTrips: number
}

interface Connection {
  sync(): void
  query(text: string): void
  on(event: 'readyForQuery', listener: () => void): unknown
}

/** Counts on every connection `pool` opens from now on (install it before the pool's first query). */
export function countRoundTrips(pool: object): WireCount {
  const count: WireCount = { statements: 0, roundTrips: 0 }
  // A pg Pool (typed loosely: the bench has no `pg` dependency, and the pools come from two packages).
  ;(pool as { on(event: 'connect', listener: (client: unknown) => void): unknown }).on('connect', (client) => {
    const { connection } = client as { connection: Connection }
    let outstanding = 0
    let repliedSinceSend = true
    const sent = () => {
      count.statements++
      if (outstanding === 0 || repliedSinceSend) count.roundTrips++
      outstanding++
      repliedSinceSend = false
    }
    const [sync, query] = [connection.sync.bind(connection), connection.query.bind(connection)]
    connection.sync = () => (sent(), sync())
    connection.query = (text: string) => (sent(), query(text))
    connection.on('readyForQuery', () => {
      outstanding = Math.max(0, outstanding - 1)
      repliedSinceSend = true
    })
  })
  return count
}

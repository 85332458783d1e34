// What a pool's clients write to the server, in order: `statement` for each statement with parameters (its Sync
// message), the text of each simple query (BEGIN, COMMIT…), and with `replies`, `reply` when a query settles.
import type pg from 'pg'

export function recordWire(pool: pg.Pool, options: { replies?: boolean } = {}): string[] {
  const timeline: string[] = []
  pool.on('acquire', (client) => {
    const spied = client as unknown as { spied?: boolean; connection: { sync(): void; query(text: string): void } }
    if (spied.spied) return
    spied.spied = true
    const { connection } = spied
    const [sync, query] = [connection.sync.bind(connection), connection.query.bind(connection)]
    connection.sync = () => (timeline.push('statement'), sync())
    connection.query = (text: string) => (timeline.push(text), query(text))
    if (!options.replies) return
    const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown> | undefined
    ;(client as unknown as { query: typeof send }).query = (...args) => {
      // pool.query() passes a callback (and gets no promise back); a checked-out client's caller awaits the promise.
      const callback = args.at(-1)
      if (typeof callback !== 'function') return send(...args)!.finally(() => timeline.push('reply'))
      return send(...args.slice(0, -1), (...results: unknown[]) => (timeline.push('reply'), (callback as (...results: unknown[]) => unknown)(...results)))
    }
  })
  return timeline
}

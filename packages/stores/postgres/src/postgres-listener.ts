// One dedicated connection that LISTENs on a channel, reconnecting with backoff; callers fall back to polling meanwhile.
import pg from 'pg'

export interface ListenerHandlers {
  onNotification(payload: string): void
  /** Called after a lost connection is back (not on the first connect): catch up on what was missed. */
  onReconnect?(): void
  /** Called when an established LISTEN connection is lost. */
  onLost?(): void
}

/** LISTEN needs a connection of its own (a pooled one would be handed to other queries). */
export class PostgresListener {
  readonly #config: pg.ClientConfig
  readonly #channel: string
  readonly #handlers: ListenerHandlers
  #client: pg.Client | undefined
  #connecting: Promise<void> | undefined
  #closed = false
  #everConnected = false
  #retryTimer: NodeJS.Timeout | undefined
  #backoffMs = 100

  constructor(config: pg.ClientConfig, channel: string, handlers: ListenerHandlers) {
    this.#config = config
    this.#channel = channel
    this.#handlers = handlers
  }

  /** True while the LISTEN connection is up. */
  get connected(): boolean {
    return this.#client !== undefined
  }

  /** Connects (once); resolves even when the connection fails (a retry is scheduled, polling covers the gap). */
  start(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined
    })
    return this.#connecting
  }

  async #connect(): Promise<void> {
    const client = new pg.Client(this.#config)
    client.on('error', () => this.#lost(client))
    client.on('end', () => this.#lost(client))
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#handlers.onNotification(message.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN "${this.#channel}"`)
    } catch {
      client.end().catch(() => {})
      this.#scheduleRetry()
      return
    }
    if (this.#closed) {
      await client.end().catch(() => {})
      return
    }
    this.#client = client
    this.#backoffMs = 100
    const reconnected = this.#everConnected
    this.#everConnected = true
    if (reconnected) this.#handlers.onReconnect?.()
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return
    this.#client = undefined
    client.end().catch(() => {})
    this.#handlers.onLost?.()
    this.#scheduleRetry()
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retryTimer !== undefined) return
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      void this.start()
    }, this.#backoffMs)
    this.#retryTimer.unref?.()
    this.#backoffMs = Math.min(this.#backoffMs * 2, 5000)
  }

  /** The backend pid of the LISTEN connection (tests terminate it to prove reconnects). */
  async backendPid(): Promise<number | undefined> {
    const client = this.#client
    if (client === undefined) return undefined
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    return rows[0]?.pid
  }

  async close(): Promise<void> {
    this.#closed = true
    if (this.#retryTimer !== undefined) clearTimeout(this.#retryTimer)
    await this.#connecting
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => {})
  }
}

// createPlayground: the Hono app (access control, API, web UI) on a composed Spindle.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { accessControl } from './auth.js'
import { createApi } from './api.js'
import { composeSpindle, type Spindle } from './compose-spindle.js'
import type { PlaygroundConfig } from './config.js'
import { queuedMessageFile } from './queued-message-file.js'
import { RunManager } from './run-manager.js'
import { staticFiles } from './static-files.js'

export interface Playground {
  app: Hono
  spindle: Spindle
  manager: RunManager
  token: string
  /** The URL to open (with the token), once listening. */
  url: string
  port: number
  close(): Promise<void>
}

export async function startPlayground(config: PlaygroundConfig): Promise<Playground> {
  const spindle = await composeSpindle(config)
  const manager = new RunManager(spindle, { queueFile: queuedMessageFile(join(config.dataDir, 'queued-messages.json')) })
  // Before the server answers: the messages a previous process left waiting go back in line ahead of any new one.
  await manager.restoreQueued()
  const token = config.token ?? randomBytes(24).toString('base64url')
  let port = config.port
  const allowedHosts = () => {
    const names = new Set(['127.0.0.1', 'localhost', '[::1]', config.host])
    return new Set([...names].map((name) => `${name}:${port}`.toLowerCase()))
  }
  const app = new Hono()
  app.use('*', async (c, next) => {
    await next()
    c.header('x-frame-options', 'DENY')
    c.header('referrer-policy', 'no-referrer')
  })
  app.use('*', accessControl({ token, allowedHosts }))
  app.route('/api', createApi(spindle, manager))
  app.get('*', staticFiles(config.webDir))

  const server: ServerType = await new Promise((resolve) => {
    const created = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () => resolve(created))
  })
  port = (server.address() as AddressInfo).port
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host
  return {
    app,
    spindle,
    manager,
    token,
    port,
    url: `http://${shownHost}:${port}/?token=${token}`,
    async close() {
      ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      // Runs in flight end `interrupted` (like a kill), so that the next start can resume them; the stores close anyway.
      await manager.shutdown().catch((error: unknown) => console.error('[spindle/playground] marking the runs in flight interrupted failed:', error))
      await spindle.close()
    },
  }
}

// The web UI's files: a malformed percent-encoding in a page or asset path is the client's mistake (400), not a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

let playground: TestPlayground

beforeAll(async () => {
  playground = await startTestPlayground()
})
afterAll(() => playground.stop())

describe('static files', () => {
  it('answers 400 to a path that is not valid percent-encoding, under a page or /assets/', async () => {
    for (const path of ['/s/%E0%A4%A', '/assets/%E0%A4%A', '/%ZZ', '/assets/%C3']) {
      const response = await playground.call('GET', path)
      expect(response.status, path).toBe(400)
      expect(response.body).toContain('not valid percent-encoded UTF-8')
    }
    // Valid encodings still name their page (the UI's index, or its 503 when it is not built) or a missing asset.
    expect([200, 503]).toContain((await playground.call('GET', '/s/ses_%C3%A9')).status)
    expect((await playground.call('GET', '/assets/no-such-file%20here.js')).status).toBe(404)
  })
})

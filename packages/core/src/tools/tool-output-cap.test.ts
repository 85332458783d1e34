// Images and other binary media in a tool result stay out of the text cut: images whole up to their own bound,
// the rest (and images past it) stored as artifacts and named; text parts cut head and tail within maxToolOutputBytes.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryArtifactStore } from '../stores/memory/memory-artifact-store.js'
import { capJournaledOutput, capMediaToolOutput } from './tool-output-cap.js'

const image = (bytes: number) => ({ type: 'image', mimeType: 'image/png', data: randomBytes(bytes).toString('base64') })

describe('capMediaToolOutput', () => {
  it('leaves a result without media to the text rules, and one within both bounds as it is', () => {
    expect(capMediaToolOutput({ content: [{ type: 'text', text: 'x'.repeat(100_000) }] }, { maxBytes: 32_000, maxMediaBytes: 5_000_000 })).toBeUndefined()
    const result = { content: [{ type: 'text', text: 'a chart' }, image(150_000)] }
    expect(capMediaToolOutput(result, { maxBytes: 32_000, maxMediaBytes: 5_000_000 })).toBe(result)
  })

  it('cuts only the text parts when they exceed maxBytes; the image goes whole', () => {
    const picture = image(150_000)
    const capped = capMediaToolOutput(
      { content: [{ type: 'text', text: 'y'.repeat(100_000) }, picture], structuredContent: { n: 1 } },
      { maxBytes: 32_000, maxMediaBytes: 5_000_000 },
    ) as {
      content: Array<{ type: string; text?: string }>
    }
    expect(capped.content[1]).toBe(picture)
    expect(Buffer.byteLength(capped.content[0]!.text!)).toBeLessThanOrEqual(32_000)
    expect(capped.content[0]!.text).toMatch(/truncated/)
    expect(capped.content[2]).toEqual({ type: 'text', text: '{"structuredContent":{"n":1}}' })
  })

  it('stores images past the bound and other binary media as artifacts and names them; the first images that fit stay', async () => {
    const artifacts = new MemoryArtifactStore()
    const small = image(300)
    const audio = { type: 'audio', mimeType: 'audio/wav', data: randomBytes(3_000).toString('base64') }
    const capped = (await capMediaToolOutput(
      { content: [small, image(2_000), audio] },
      { maxBytes: 1_000, maxMediaBytes: 1_000, artifacts, name: 'cam', metadata: { runId: 'r' } },
    )) as {
      content: Array<{ type: string; text?: string }>
    }
    expect(capped.content[0]).toBe(small)
    expect(capped.content[1]!.text).toMatch(
      /^\[image\/png of 2000 bytes over the 1000-byte bound on images in one tool result; kept as artifact [0-9a-f]{64}\]$/,
    )
    expect(capped.content[2]!.text).toMatch(/^\[audio\/wav of 3000 bytes not sent to the model \(binary media\); kept as artifact [0-9a-f]{64}\]$/)
    const id = /artifact ([0-9a-f]{64})/.exec(capped.content[2]!.text!)![1]!
    expect(await artifacts.head(id)).toMatchObject({ mediaType: 'audio/wav', size: 3_000, metadata: { runId: 'r' } })
  })

  it('keeps other binary media as they were while the result fits maxBytes (a small SVG stays the text it was)', () => {
    const svg = { content: [{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }] }
    expect(capMediaToolOutput(svg, { maxBytes: 32_000, maxMediaBytes: 5_000_000 })).toBe(svg)
    const withPhoto = { content: [svg.content[0]!, image(40_000)] }
    expect(capMediaToolOutput(withPhoto, { maxBytes: 32_000, maxMediaBytes: 5_000_000 })).toBe(withPhoto)
  })

  it('a journaled result read again is capped the same way, synchronously, with nothing stored', () => {
    const picture = image(150_000)
    expect(capJournaledOutput({ content: [{ type: 'text', text: 'ok' }, picture] }, { maxToolOutputBytes: 32_000 })).toEqual({
      content: [{ type: 'text', text: 'ok' }, picture],
    })
    const huge = capJournaledOutput({ content: [image(40_000)] }, { maxToolOutputBytes: 32_000, maxToolMediaBytes: 10_000 }) as {
      content: Array<{ text: string }>
    }
    expect(huge.content[0]!.text).toBe('[image/png of 40000 bytes over the 10000-byte bound on images in one tool result]')
    expect(typeof capJournaledOutput('z'.repeat(50_000), { maxToolOutputBytes: 1_000 })).toBe('string')
  })
})

import { describe, expect, it } from 'vitest'
import { decodeEntities, htmlToText } from './index.js'

describe('htmlToText', () => {
  it('keeps headings, paragraphs, lists and link texts, drops scripts and styles', () => {
    const page = htmlToText(
      `<!doctype html><html><head><title>My &amp; Page</title><style>body { color: red }</style>
       <script>var secret = "do not show"</script></head>
       <body><h1>Welcome</h1><p>Read <a href="/docs?x=1&amp;y=2">the docs</a> now.</p>
       <script type="module">alert("nope")</script><noscript>enable js</noscript>
       <ul><li>One</li><li>Two &lt;3</li></ul><h2>Next</h2><p>a&nbsp;b &#65;&#x42;</p>
       <!-- <p>hidden comment</p> --><a href="javascript:alert(1)">bad</a><img alt="logo" src="x.png"></body></html>`,
      'https://example.com/base/',
    )
    expect(page.title).toBe('My & Page')
    expect(page.text).toBe('# Welcome\n\nRead the docs now.\n\n- One\n- Two <3\n\n## Next\n\na b AB\n\nbad[logo]')
    expect(page.text).not.toMatch(/secret|alert|color|enable js|hidden comment/)
    expect(page.links).toEqual([{ text: 'the docs', href: 'https://example.com/docs?x=1&y=2' }])
  })

  it('survives malformed markup and stray angle brackets', () => {
    expect(htmlToText('a < b and <b>bold</b> <script>never closed').text).toBe('a < b and bold')
    expect(htmlToText('<p>unclosed <a href="x">link').text).toBe('unclosed link')
    expect(htmlToText('x <').text).toBe('x')
  })

  it('is linear on hostile input (many unclosed script tags)', () => {
    const hostile = '<script>'.repeat(50_000) + '<p>x</p>'.repeat(50_000)
    const started = Date.now()
    htmlToText(hostile)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('decodes entities, replacing invalid code points', () => {
    expect(decodeEntities('&lt;&gt;&amp;&quot;&#39;&#x1F600;&#xD800;&unknown;')).toBe('<>&"\'😀\uFFFD&unknown;')
  })
})

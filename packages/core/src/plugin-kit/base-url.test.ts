// splitBaseURL on its own: what the providers' base-URL tests check through createOpenAI and createAnthropic.
import { describe, expect, it } from 'vitest'
import { splitBaseURL } from './base-url.js'

const fail = (message: string): never => {
  throw new Error(message)
}

describe('splitBaseURL', () => {
  it('keeps a base URL without a query as it is', () => {
    expect(splitBaseURL('https://api.example/v1', fail)).toEqual({ baseURL: 'https://api.example/v1', defaultQuery: undefined })
  })

  it('splits the query off into defaultQuery, so request paths go before it', () => {
    expect(splitBaseURL('https://gw.example/v1?api-version=2025&team=ml', fail)).toEqual({
      baseURL: 'https://gw.example/v1',
      defaultQuery: { 'api-version': '2025', team: 'ml' },
    })
  })

  it('refuses credentials before the host without quoting them', () => {
    const attempt = () => splitBaseURL('http://alice:pa55-w0rd@proxy.example:8080/v1', fail)
    expect(attempt).toThrow('baseURL "http://proxy.example:8080/v1" carries credentials before its host (user:password@)')
    expect(attempt).not.toThrow(/pa55-w0rd|alice/)
  })

  it('refuses a missing scheme, a fragment and a query parameter given twice', () => {
    expect(() => splitBaseURL('gateway.example', fail)).toThrow(/must start with http/)
    expect(() => splitBaseURL('http://host/v1#frag', fail)).toThrow(/has a fragment/)
    expect(() => splitBaseURL('http://host/v1?a=1&a=2', fail)).toThrow('baseURL query parameter "a" is given twice; give it once')
  })
})

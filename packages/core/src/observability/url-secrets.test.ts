// urlSecrets: what of a base URL is a secret to scrub from errors.
import { describe, expect, it } from 'vitest'
import { urlSecrets } from './url-secrets.js'

describe('urlSecrets', () => {
  it('takes the password (with its user), a user name standing alone as a token, and credential query values', () => {
    expect(urlSecrets('https://proxy:pa55word@gateway.example/v1?api_key=k-123456&api-version=2024-10-21')).toEqual([
      'proxy:pa55word',
      'proxy%3Apa55word',
      'pa55word',
      'k-123456',
    ])
    expect(urlSecrets('https://ghp_token123@gateway.example/v1')).toEqual(['ghp_token123'])
    expect(urlSecrets('https://gateway.example/v1?sig=abc%2Fdef&access_token=t%2B1')).toEqual(['t+1', 't%2B1'])
    expect(urlSecrets(undefined)).toEqual([])
    expect(urlSecrets('not a url')).toEqual([])
  })
})

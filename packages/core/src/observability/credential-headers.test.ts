// Which request headers carry credentials, for the providers to scrub from their errors (their tests check the
// scrubbing end to end against loopback servers).
import { describe, expect, it } from 'vitest'
import { credentialHeaderValues, requestSecrets } from './credential-headers.js'

describe('credentialHeaderValues', () => {
  it('takes credential headers by name, case-insensitively, and skips the others', () => {
    const values = credentialHeaderValues({
      'api-key': 'azure-1',
      Authorization: 'Bearer tok-2',
      'X-API-Key': 'xkey-3',
      'x-amz-security-token': 'sts-4',
      'x-client-secret': 'sec-5',
      'x-goog-auth-user': 'auth-6',
      'openai-organization': 'org-7',
      'x-team': 'team-8',
      'anthropic-beta': 'beta-9',
    })
    expect(values).toEqual(['azure-1', 'Bearer tok-2', 'tok-2', 'xkey-3', 'sts-4', 'sec-5', 'auth-6'])
  })

  it('adds each cookie value, and ignores missing headers', () => {
    expect(credentialHeaderValues({ Cookie: 'session=abc123; theme=dark' })).toEqual(['session=abc123; theme=dark', 'abc123', 'dark'])
    expect(credentialHeaderValues(undefined)).toEqual([])
    expect(credentialHeaderValues({ 'api-key': null, 'x-token': undefined })).toEqual([])
  })

  it('merges the key with provider and call headers, longest first, without duplicates', () => {
    expect(requestSecrets('sk-1234', { authorization: 'Bearer gw-abcdef' }, { 'api-key': 'sk-1234' }, undefined)).toEqual([
      'Bearer gw-abcdef',
      'gw-abcdef',
      'sk-1234',
    ])
  })

  it('takes credential headers by name, case-insensitively, with the token of an Authorization header and each cookie value', () => {
    expect(credentialHeaderValues({ 'X-Api-Key': 'key-1', authorization: 'Bearer tok-2', cookie: 'sid=abc123', 'anthropic-beta': 'beta-3' })).toEqual([
      'key-1',
      'Bearer tok-2',
      'tok-2',
      'sid=abc123',
      'abc123',
    ])
  })
})

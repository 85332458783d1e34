// The default owner id names this process; a lease held by a dead process of this host is free at once, and only then.
import { spawnSync } from 'node:child_process'
import { hostname } from 'node:os'
import { expect, it } from 'vitest'
import { AgentRuntime } from '../index.js'
import { defaultOwnerId, leaseIsFree, ownerIsGone } from './owner-identity.js'

const later = () => Date.now() + 60_000

it('the default owner id carries the host, the pid and the start time; this live process is never judged gone', () => {
  const owner = new AgentRuntime().ownerId
  expect(owner).toBe(defaultOwnerId())
  expect(owner.startsWith(`runtime@${encodeURIComponent(hostname())}/${process.pid}/`)).toBe(true)
  expect(ownerIsGone(owner)).toBe(false)
  expect(leaseIsFree({ owner, expiresAt: later() })).toBe(false)
})

it('a lease of a dead process of this host (or an earlier start of a reused pid) is free before it expires', () => {
  const own = defaultOwnerId()
  const [, pid, start] = own.slice('runtime@'.length).split('/')
  if (start!.startsWith('nonce-')) return // No /proc here: nothing can be told, leases wait (the next test covers it).
  // A process that ran and exited: its pid is dead (or reused by a process with another start time).
  const exited = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
  const deadPid = Number(exited.stdout.trim())
  expect(leaseIsFree({ owner: own.replace(`/${pid}/`, `/${deadPid}/`), expiresAt: later() })).toBe(true)
  // This pid, but another start time: an earlier process that had it.
  const [boot, namespace, ticks] = start!.split('.')
  expect(ownerIsGone(own.replace(start!, `${boot}.${namespace}.${Number(ticks) - 1}`))).toBe(true)
})

it('what cannot be proven dead waits for its lease: another host or boot, another pid namespace, a custom id, a nonce', () => {
  const own = defaultOwnerId()
  const [, pid, start] = own.slice('runtime@'.length).split('/')
  const [boot, , ticks] = start!.split('.')
  for (const owner of [
    own.replace(`runtime@${encodeURIComponent(hostname())}/`, 'runtime@another-host/'),
    own.replace(start!, `${boot}.1.${ticks}`),
    // Another boot id: an earlier boot of this machine, or another machine with the same host name (a cloned image,
    // a default name): the two cannot be told apart, so it waits.
    own.replace(start!, `00000000-0000-0000-0000-000000000000.1.${ticks}`),
    own.replace(start!, 'nonce-abc'),
    `runtime@${encodeURIComponent(hostname())}/${pid}`,
    'durable-demo',
    `runtime_${crypto.randomUUID()}`,
  ]) {
    expect(ownerIsGone(owner)).toBe(false)
    expect(leaseIsFree({ owner, expiresAt: later() })).toBe(false)
    expect(leaseIsFree({ owner, expiresAt: Date.now() - 1 })).toBe(true)
  }
  expect(leaseIsFree(undefined)).toBe(true)
})

// The default owner id of a runtime in run leases, and the rule that frees a lease whose owner is known to be dead.
//
// The default id names this process: `runtime@<host>/<pid>/<start>`, where <start> is, on Linux, the boot id, the
// pid namespace and the process's start time (from /proc), and elsewhere a random nonce. A lease held by such an id
// is free at once — before it expires — when its owner is provably gone: same host and same pid namespace, and the
// pid is dead (ESRCH), or alive with another start time (the pid was reused), in this same boot. Anything not provable
// (another host, another boot or namespace, a custom id, a random nonce, an unreadable /proc) waits for the
// lease to expire, as before: two live processes never both own a run.
import { randomUUID } from 'node:crypto'
import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

interface ParsedOwner {
  host: string
  pid: number
  start: string
}

const PREFIX = 'runtime@'

function readOrUndefined(read: () => string): string | undefined {
  try {
    return read().trim() || undefined
  } catch {
    return undefined
  }
}

/** The start time (clock ticks since boot) of a process from /proc/<pid>/stat, or undefined. */
function startTicks(pid: number | 'self'): string | undefined {
  const stat = readOrUndefined(() => readFileSync(`/proc/${pid}/stat`, 'utf8'))
  if (!stat) return undefined
  // Field 22; the command name (field 2) is in parentheses and may hold spaces, so count from its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return fields[19]
}

const bootId = readOrUndefined(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'))
const pidNamespace = readOrUndefined(() => readlinkSync('/proc/self/ns/pid').replace(/\D/g, ''))
const ownTicks = startTicks('self')
/** `<boot>.<namespace>.<ticks>` where /proc tells them, else `nonce-<uuid>` (never judged). */
const ownStart = bootId && pidNamespace && ownTicks ? `${bootId}.${pidNamespace}.${ownTicks}` : `nonce-${randomUUID()}`
const ownHost = hostname()

/** This process's default owner id in run leases (see `AgentRuntimeOptions.ownerId`). */
export function defaultOwnerId(): string {
  return `${PREFIX}${encodeURIComponent(ownHost)}/${process.pid}/${ownStart}`
}

function parseOwner(owner: string): ParsedOwner | undefined {
  if (!owner.startsWith(PREFIX)) return undefined
  const [host, pid, start, ...rest] = owner.slice(PREFIX.length).split('/')
  if (host === undefined || pid === undefined || start === undefined || rest.length || !/^\d+$/.test(pid)) return undefined
  try {
    return { host: decodeURIComponent(host), pid: Number(pid), start }
  } catch {
    return undefined
  }
}

/** Whether the process named by a default owner id is provably dead (false when it cannot be told). */
export function ownerIsGone(owner: string): boolean {
  const parsed = parseOwner(owner)
  if (!parsed || parsed.host !== ownHost || parsed.start.startsWith('nonce-') || ownStart.startsWith('nonce-')) return false
  const [boot, namespace, ticks] = parsed.start.split('.')
  if (!boot || !namespace || !ticks) return false
  // Another boot id: an earlier boot of this machine, or another machine that has the same host name (a cloned image,
  // a default name such as localhost). They cannot be told apart, so nothing is proven: the lease runs out.
  if (boot !== bootId) return false
  // Another pid namespace (another container on this host): its pids mean nothing here.
  if (namespace !== pidNamespace) return false
  if (parsed.pid === process.pid) return ticks !== ownTicks
  try {
    process.kill(parsed.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true
    // EPERM: alive, owned by another user; its start time tells whether it is the same process.
  }
  const now = startTicks(parsed.pid)
  return now !== undefined && now !== ticks
}

/**
 * Whether a run's lease no longer holds it: there is none, it expired at `now`, or its owner is provably dead
 * (`ownerIsGone`). A claim (compare-and-set on the lease read) still decides which process takes the run.
 *
 * @example
 * if (run.status === 'running' && leaseIsFree(run.lease)) await runs.claimRun?.(run.id, { status: run.status, lease: run.lease }, { status: 'interrupted', lease: undefined })
 */
export function leaseIsFree(lease: { owner: string; expiresAt: number } | undefined, now = Date.now()): boolean {
  return !lease || lease.expiresAt <= now || ownerIsGone(lease.owner)
}

// A worker started through wrappers (`pnpm exec tsx worker.ts`: pnpm → tsx → node) is not the pid a user kills: the
// wrappers die and the worker would go on claiming runs. It watches the wrappers that started it, and when one of
// them dies without a graceful stop first, it dies the same way (SIGKILL), as the user meant. Started by anything
// else (a shell, a process manager, a test), it watches nothing.
import { execFileSync } from 'node:child_process'

/** pnpm, npm, npx, yarn or tsx's command line. */
const wrapper = /(^|\/)(pnpm|npm|npx|yarn)(\.c?js)?(\s|$)|(^|\/)tsx(\s|$)|tsx\/dist\/cli\.m?js/

/** The wrappers right above this process (parent first), read with `ps`. */
function wrappersAbove(): number[] {
  const found: number[] = []
  let pid = process.ppid
  while (pid > 1 && found.length < 4) {
    let line: string
    try {
      line = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim()
    } catch {
      break
    }
    const [, parent, args] = /^(\d+)\s+(.*)$/.exec(line) ?? []
    if (args === undefined || !wrapper.test(args)) break
    found.push(pid)
    pid = Number(parent)
  }
  return found
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Kills this process when a wrapper that started it dies, unless `stopping` was aborted first (a graceful stop). */
export function exitWithParents(stopping: AbortSignal): void {
  const watched = wrappersAbove()
  if (watched.length === 0) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (stopping.aborted) return clearInterval(timer)
    const gone = process.ppid !== parent ? parent : watched.find((pid) => !alive(pid))
    if (gone === undefined) return
    console.error(`process ${gone}, which started this worker, died: this worker dies too (kill -9)`)
    process.kill(process.pid, 'SIGKILL')
  }, 250)
  timer.unref()
}

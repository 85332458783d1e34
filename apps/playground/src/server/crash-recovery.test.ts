// A playground process killed with SIGKILL mid-run, or stopped with Ctrl-C mid-run, then a new one on the same
// data folder: the run is shown `interrupted` (not `running` forever) and resumes to the end with a gap-free log.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { eventLogProblems } from '@spindle/core'
import { type ChildPlayground, startChildPlayground } from '../test-support/child-playground.js'
import { startTestPlayground, type TestPlayground } from '../test-support/test-playground.js'

const moral = 'The moral: write it down first.'
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spindle-playground-crash-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function child(dataDir: string, env: Record<string, string>): Promise<ChildPlayground> {
  const started = await startChildPlayground({ dataDir, env: { DEMO_CHUNK_DELAY_MS: '20', ...env } })
  cleanups.push(() => void started.child.kill('SIGKILL'))
  return started
}

/** Starts the long story in the child and lets it stream for a while (its deltas reach the log at the step's end). */
async function storyUnderway(playground: ChildPlayground): Promise<string> {
  const sessionId = (await playground.call('POST', '/api/sessions', {})).body.session.id
  const started = await playground.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'tell me a long story' })
  expect(started.status).toBe(202)
  const runId: string = started.body.runId
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const { body } = await playground.call('GET', `/api/runs/${runId}`)
    if (body.run.status === 'running' && body.events.some((event: { type: string }) => event.type === 'snapshot.saved')) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      return runId
    }
  }
  throw new Error(`run ${runId} did not get under way:\n${playground.output()}`)
}

async function restart(dataDir: string): Promise<TestPlayground> {
  const playground = await startTestPlayground({ dataDir, leaseMs: 4000 })
  cleanups.push(() => playground.close())
  return playground
}

async function resumesToTheEnd(playground: TestPlayground, runId: string): Promise<void> {
  expect((await playground.call('POST', `/api/runs/${runId}/resume`, {})).status).toBe(202)
  const done = await playground.waitForRun(runId, (detail) => detail.run.status === 'completed')
  expect(eventLogProblems(done.events, { finished: true })).toEqual([])
  expect(done.events.filter((event: { type: string }) => event.type === 'run.resumed')).toHaveLength(1)
  const text: string = done.events.at(-1).text
  expect(text.match(/Once upon a time/g)).toHaveLength(1)
  expect(text.endsWith(moral)).toBe(true)
}

describe('a run whose playground process ended mid-run', () => {
  it('SIGKILL and a restart well within the lease: the dead process’s run is interrupted at once (its owner is provably dead), then resumes', async () => {
    const dataDir = dataFolder()
    // A 30 s lease, heartbeats every 10 s: at the kill at least 20 s of it are left. Before owner ids named their process,
    // the restarted server had to wait that out before the run showed as interrupted.
    const crashed = await child(dataDir, { SPINDLE_LEASE_MS: '30000' })
    const runId = await storyUnderway(crashed)
    const killedAt = Date.now()
    crashed.child.kill('SIGKILL')
    expect((await crashed.exited).signal).toBe('SIGKILL')

    const playground = await restart(dataDir)
    const interrupted = await playground.waitForRun(runId, (detail) => detail.run.status === 'interrupted', 15_000)
    expect(Date.now() - killedAt).toBeLessThan(20_000)
    expect(interrupted.run.lease).toBeUndefined()
    expect(interrupted.gate.holder).toBeUndefined()
    await resumesToTheEnd(playground, runId)
  }, 45_000)

  it('Ctrl-C (SIGINT from the terminal, then again from the launcher): the process exits cleanly and the run is interrupted at once', async () => {
    const dataDir = dataFolder()
    // A slower story (about 5 s) outlasts the shutdown's wait for runs in flight.
    const stopped = await child(dataDir, { DEMO_CHUNK_DELAY_MS: '40' })
    const runId = await storyUnderway(stopped)
    stopped.child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 100))
    stopped.child.kill('SIGINT')
    expect(await stopped.exited).toEqual({ code: 0, signal: null })

    const playground = await restart(dataDir)
    const interrupted = (await playground.call('GET', `/api/runs/${runId}`)).body
    expect(interrupted.run.status).toBe('interrupted')
    expect(interrupted.run.lease).toBeUndefined()
    expect(interrupted.events.some((event: { type: string }) => event.type === 'run.finished')).toBe(false)
    await resumesToTheEnd(playground, runId)
  }, 45_000)
})

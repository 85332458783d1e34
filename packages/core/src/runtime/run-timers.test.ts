// The shared run timer: each run's timer fires once due (a repeating one again each period), a stopped one never
// does, and a timer due before the one the Node timer is armed for still fires on time.
import { describe, expect, it } from 'vitest'
import { startRunTimer, stopRunTimer } from './run-timers.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('run timers', () => {
  it('fires a one-off timer once it is due, once', async () => {
    let fired = 0
    startRunTimer(20, () => fired++)
    expect(fired).toBe(0)
    await sleep(80)
    expect(fired).toBe(1)
  })

  it('never fires a stopped timer, and still fires the others', async () => {
    const fired: string[] = []
    const stopped = startRunTimer(20, () => fired.push('stopped'))
    startRunTimer(20, () => fired.push('running'))
    stopRunTimer(stopped)
    await sleep(60)
    expect(fired).toEqual(['running'])
  })

  it('fires a timer registered after a later one on time (the Node timer re-arms), then the later one', async () => {
    const fired: string[] = []
    startRunTimer(150, () => fired.push('later'))
    startRunTimer(10, () => fired.push('earlier'))
    await sleep(60)
    expect(fired).toEqual(['earlier'])
    await sleep(150)
    expect(fired).toEqual(['earlier', 'later'])
  })

  it('fires a repeating timer every period until stopped; a throwing callback does not stop the others', async () => {
    let ticks = 0
    const heartbeat = startRunTimer(15, () => ticks++, 15)
    startRunTimer(10, () => {
      throw new Error('a run’s broken callback')
    })
    await sleep(100)
    stopRunTimer(heartbeat)
    const seen = ticks
    expect(seen).toBeGreaterThanOrEqual(2)
    await sleep(60)
    expect(ticks).toBe(seen)
  })
})

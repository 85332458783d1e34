// run() and stream(): a request admitted, deduplicated by its idempotency key, its session held, its records
// created and its execution driven from the input.
import type { ContextWindow } from '../context/context-window.js'
import type { RunEventChannel } from '../events/event-channel.js'
import { SpindleError } from '../errors/spindle-error.js'
import type { RuntimePolicy } from '../policy/runtime-policy.js'
import type { RuntimeStore } from '../runtime-store/runtime-store.js'
import type { AgentEvent } from '../spec/events.js'
import type { JsonObject } from '../spec/json.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { ModelMessage } from '../spec/messages.js'
import type { RunRecord } from '../spec/run-store.js'
import { timeOrderedId } from '../stores/time-ordered-id.js'
import { toolEntries } from '../tools/tool-registry.js'
import { admitRequestNow } from './admission.js'
import { isPending } from '../util/fast-path.js'
import { executeHeld, holdSession, refuseOverUnfinished } from './hold-session.js'
import { existingOutput } from './resume-run.js'
import type { RunOutput, RunRequest } from './run-request.js'
import { initialRunState } from './run-state.js'
import type { RuntimeServices } from './runtime-services.js'

/** A request admitted: its merged policy, its input and its session. */
export async function admit(services: RuntimeServices, request: RunRequest): Promise<{ policy: RuntimePolicy; input: ModelMessage[]; sessionId: string }> {
  await services.extensions.ready()
  // `request?.`: a request that is not even an object gets its AdmissionError from the schema below.
  const policy = services.agents.policy(request?.agent)
  const admitted = admitRequestNow(request, policy, services.admission)
  const input = isPending(admitted) ? await admitted : admitted
  return { policy, input, sessionId: request.sessionId ?? `ses_${timeOrderedId()}` }
}

/** `controller` is the stream's (aborted when its consumer stops reading); `run()` leaves it to this function. */
export async function startRun(
  services: RuntimeServices,
  request: RunRequest,
  runtime: RuntimeStore | undefined,
  channel: RunEventChannel<AgentEvent> | undefined,
  controller = new AbortController(),
): Promise<RunOutput> {
  const { policy, input, sessionId } = await admit(services, request)
  if (!request.idempotencyKey) return startAdmitted(services, request, runtime, channel, controller, policy, input, sessionId)
  // A duplicate submitted while the first is still starting (a double click) shares its outcome: it neither waits
  // for the session behind it nor is refused as contention.
  const starts = services.startsInFlight
  const flightKey = JSON.stringify([sessionId, request.idempotencyKey])
  const inFlight = starts.get(flightKey)
  if (inFlight) return replayInto(services, channel, inFlight)
  const starting = (async () => {
    const existing = await runWithKey(services, sessionId, request.idempotencyKey!, policy)
    if (existing) return replayInto(services, channel, existingOutput(services, existing, request.agent))
    return startAdmitted(services, request, runtime, channel, controller, policy, input, sessionId)
  })()
  starts.set(flightKey, starting)
  try {
    return await starting
  } finally {
    starts.delete(flightKey)
  }
}

/**
 * A duplicate submit's stream gets the run it shares: once that run has ended (or suspended), its whole event log,
 * in order, so that a `stream()` consumer sees every event and exactly one terminal event, as the first did.
 */
async function replayInto(services: RuntimeServices, channel: RunEventChannel<AgentEvent> | undefined, outcome: Promise<RunOutput>): Promise<RunOutput> {
  const output = await outcome
  if (channel === undefined) return output
  for (let after = 0; ;) {
    const page = await services.runs.listEvents(output.runId, { after, limit: 1_000 })
    for (const event of page) channel.push(event)
    if (page.length < 1_000) return output
    after = page[page.length - 1]!.seq
  }
}

/**
 * The session's run with this idempotency key, while the key is younger than `policy.idempotencyTtlMs`. An older
 * key is released from its run, so the new submit creates a run of its own (the store's unique key would
 * otherwise hand back the old run for ever).
 */
export async function runWithKey(services: RuntimeServices, sessionId: string, key: string, policy: RuntimePolicy): Promise<RunRecord | undefined> {
  const existing = await services.runs.findRunByIdempotencyKey(sessionId, key)
  if (existing === undefined || Date.now() - existing.createdAt < policy.idempotencyTtlMs) return existing
  await services.runs.updateRun(existing.id, { idempotencyKey: undefined })
  return undefined
}

async function startAdmitted(
  services: RuntimeServices,
  request: RunRequest,
  runtime: RuntimeStore | undefined,
  channel: RunEventChannel<AgentEvent> | undefined,
  controller: AbortController,
  policy: RuntimePolicy,
  input: ModelMessage[],
  sessionId: string,
): Promise<RunOutput> {
  const model = services.agents.model(request.model ?? request.agent.model)
  const scope = services.agents.scope(request.agent.tools)
  const runId = `run_${timeOrderedId()}`
  return holdSession(services, { runId, sessionId, policy, controller, signal: request.signal, abortableWait: true }, async (hold) => {
    // A session named by the caller may hold a run a crash left unfinished: refused before anything is written.
    // Its window, read here under the session's lease, is the run's: a window with entries also says the session
    // exists, so neither is read again below (two reads of the session row fewer per run).
    let read: ContextWindow | undefined
    if (request.sessionId !== undefined) await refuseOverUnfinished(services, (read = await services.windows.get(sessionId)), sessionId, runId)
    const known = read !== undefined && read.lastSeq > 0 ? read : undefined
    const winner = await createRecord(
      services,
      request,
      input,
      model,
      sessionId,
      runId,
      'running',
      { startedAt: Date.now(), lease: { owner: services.ownerId, expiresAt: Date.now() + policy.leaseMs } },
      known !== undefined,
    )
    if (typeof winner === 'object') {
      // Two identical submits raced past the idempotency check: return the one that won.
      await hold.release()
      return replayInto(services, channel, existingOutput(services, winner))
    }
    services.runAgents.set(runId, request.agent)
    // A session this run created has nothing to read yet (and the run holds its lease).
    const window = winner ? services.windows.empty(sessionId) : (known ?? (await services.windows.get(sessionId)))
    const start = {
      state: initialRunState(runId, sessionId, window.lastSeq + 1),
      agent: request.agent,
      model,
      scope,
      window,
      lease: hold.lease,
      runtime,
      channel,
      signal: controller.signal,
      parentRunId: request.parentRunId,
    }
    const modelId = `${model.provider}:${model.modelId}`
    return executeHeld(services, hold, controller, policy, start, undefined, {
      events: [{ type: 'run.started', agent: request.agent.name, modelId, input: input as never, gateWaitMs: hold.gateWaitMs }],
      input,
    })
  })
}

/**
 * Creates the session when needed and the run record. Returns the run that won an idempotency-key race, else
 * whether this call created the session (then it has no entries yet). `sessionExists`: the caller has just read
 * the session (its window has entries), so it is not read again.
 */
export async function createRecord(
  services: RuntimeServices,
  request: RunRequest,
  input: ModelMessage[],
  model: LanguageModel,
  sessionId: string,
  runId: string,
  status: 'queued' | 'running',
  start?: { startedAt: number; lease: { owner: string; expiresAt: number } },
  sessionExists = false,
): Promise<RunRecord | boolean> {
  const { sessions, runs } = services
  let createdSession = false
  // A session id this runtime generated (none in the request) is new: no read needed to know it does not exist.
  if (!sessionExists && (request.sessionId === undefined || !(await sessions.getSession(sessionId)))) {
    createdSession = await sessions.createSession({ id: sessionId, resourceId: request.resourceId, metadata: request.metadata ?? {} }).then(
      () => true,
      (error: unknown) => {
        // Another process created it in between: fine.
        if (!(SpindleError.isInstance(error) && error.code === 'duplicate')) throw error
        return false
      },
    )
  }
  let created: RunRecord
  try {
    created = await runs.createRun({
      id: runId,
      sessionId,
      status,
      idempotencyKey: request.idempotencyKey,
      metadata: request.metadata ?? {},
      request: serializeRequest(request, input, model),
      ...start,
    })
  } catch (error) {
    if (request.idempotencyKey && SpindleError.isInstance(error) && error.code === 'duplicate') {
      const winner = await runs.findRunByIdempotencyKey(sessionId, request.idempotencyKey)
      if (winner) return winner
    }
    throw error
  }
  // A store that predates NewRun's startedAt and lease ignored them: the run is started with an update instead.
  if (start && created.lease?.owner !== start.lease.owner) await runs.updateRun(runId, start)
  return createdSession
}

function serializeRequest(request: RunRequest, input: ModelMessage[], model: LanguageModel): JsonObject {
  return {
    input: input as never,
    agent: {
      name: request.agent.name,
      ...(request.agent.instructions ? { instructions: request.agent.instructions } : {}),
      model: typeof request.agent.model === 'string' ? request.agent.model : `${model.provider}:${model.modelId}`,
      tools: toolEntries(request.agent.tools).map(([name]) => name),
    },
    ...(request.resourceId ? { resourceId: request.resourceId } : {}),
    ...(request.parentRunId ? { parentRunId: request.parentRunId } : {}),
  }
}

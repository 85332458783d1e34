// The observer that turns a run's events into GenAI spans (invoke_agent → chat, execute_tool) and metrics.
import {
  type Attributes,
  context as contextApi,
  createNoopMeter,
  type Link,
  type Meter,
  ROOT_CONTEXT,
  type Span,
  INVALID_SPAN_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api'
import { createRedactor, type AgentEvent, type AgentEventOf, type Redactor, type ModelResponseInfo, type RuntimeObserver, type Usage } from '@spindle/core'
import { answeringModel } from './answering-model.js'
import { attributes as A } from './gen-ai-attributes.js'
import { inputMessages, outputMessages } from './gen-ai-messages.js'
import { createInstruments, type Instruments } from './otel-instruments.js'
import { safeJson, type ChatState, type KnownRun, type RunTrace } from './run-trace.js'
import { runSpanContext } from './trace-identity.js'
import { endRunSpan, runSpanParent } from './run-span.js'

/** Options of `OtelObserver`: the tracer and meter it records with, and whether message content goes on spans (off by default). */
export interface OtelObserverOptions {
  tracer: Tracer
  meter: Meter
  /** Record message content (input, output text, tool arguments and results) on spans. Default false. */
  captureContent: boolean
  /** How many finished runs to remember for linking a resume in this process (default 1000). */
  rememberRuns?: number
  /**
   * Hides secrets in content the observer assembles itself: a model call's text, joined from deltas that the
   * kernel redacted one by one (a key split across deltas is whole only once joined). A function is called at
   * each use; `false` redacts nothing. `otelPlugin` passes the extensions' current `redactor`. Default:
   * `createRedactor()` when content is captured.
   */
  redactor?: Redactor | false | (() => Redactor | false)
}

const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0 }
const noopMeterClass = createNoopMeter().constructor
/** Stands in for the child spans of a run that is not recorded: every call on it is a no-op. */
const idleSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT)

/** Builds spans and metrics from events. One instance serves every run of an `Extensions`. */
export class OtelObserver implements RuntimeObserver {
  readonly specificationVersion = 'v1' as const
  readonly #tracer: Tracer
  readonly #captureContent: boolean
  readonly #redactor: Redactor | false | (() => Redactor | false)
  readonly #instruments: Instruments
  /** False for the API's no-op meter (no MeterProvider registered when the plugin was set up): no metric work at all. */
  readonly #metrics: boolean
  readonly #runs = new Map<string, RunTrace>()
  readonly #known = new Map<string, KnownRun>()
  readonly #remember: number

  constructor(options: OtelObserverOptions) {
    this.#tracer = options.tracer
    this.#captureContent = options.captureContent
    this.#redactor = options.redactor ?? (options.captureContent ? createRedactor() : false)
    this.#remember = options.rememberRuns ?? 1000
    const { meter } = options
    this.#metrics = meter.constructor !== noopMeterClass
    this.#instruments = createInstruments(meter)
  }

  /** Runs being traced now (for tests and diagnostics). */
  get activeRuns(): number {
    return this.#runs.size
  }

  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'text.delta':
        if (this.#captureContent) {
          const chat = this.#runs.get(event.runId)?.chat
          if (chat) chat.text += event.delta
        }
        return
      case 'reasoning.delta':
      case 'snapshot.saved':
        return
      case 'run.started':
        this.#recordWaits(event.agent, event.gateWaitMs, event.queueWaitMs)
        return this.#start(event, event.agent, event.modelId, undefined)
      case 'run.resumed':
        this.#recordWaits(event.agent ?? this.#known.get(event.runId)?.agentName ?? 'agent', event.gateWaitMs, undefined)
        return this.#resumed(event)
      case 'step.started':
        return this.#stepStarted(event)
      case 'tool.call':
        return this.#toolCall(event)
      case 'approval.requested':
        return this.#approvalRequested(event)
      case 'tool.started':
        return this.#toolStarted(event)
      case 'tool.result':
      case 'tool.error':
        return this.#toolEnded(event)
      case 'compaction.applied': {
        const run = this.#runs.get(event.runId)
        run?.span.addEvent(
          'spindle.compaction.applied',
          {
            'spindle.compaction.strategy': event.strategy,
            'spindle.compaction.tokens_before': event.tokensBefore,
            'spindle.compaction.tokens_after': event.tokensAfter,
          },
          event.timestamp,
        )
        return
      }
      case 'step.finished':
        return this.#stepFinished(event)
      case 'run.finished':
      case 'run.failed':
        return this.#ended(event)
    }
  }

  /** Session-gate and run-queue wait, as reported by the kernel on `run.started` / `run.resumed`. */
  #recordWaits(agentName: string, gateWaitMs: number | undefined, queueWaitMs: number | undefined): void {
    if (!this.#metrics) return
    const metricAttributes: Attributes = { [A.agentName]: agentName }
    if (gateWaitMs !== undefined) this.#instruments.gateWait.record(Math.max(0, gateWaitMs), metricAttributes)
    if (queueWaitMs !== undefined) this.#instruments.queueWait.record(Math.max(0, queueWaitMs), metricAttributes)
  }

  #start(event: AgentEvent, agentName: string, modelId: string, resumed: { fromStep: number } | undefined): void {
    if (this.#runs.has(event.runId)) {
      // `run.started` then `run.resumed` in one execution (a run killed before its first event): one span.
      if (resumed) this.#runs.get(event.runId)!.span.setAttribute(A.resumedFromStep, resumed.fromStep)
      return
    }
    const separator = modelId.indexOf(':')
    const provider = separator > 0 ? modelId.slice(0, separator) : 'unknown'
    const model = separator > 0 ? modelId.slice(separator + 1) : modelId
    const links: Link[] = []
    const identity = runSpanContext(event.runId)
    const caller = trace.getSpan(contextApi.active())
    if (caller && caller.spanContext().traceId !== identity.traceId) {
      links.push({ context: caller.spanContext(), attributes: { [A.linkType]: 'caller' } })
    }
    if (resumed) {
      const previous = this.#known.get(event.runId)
      links.push({ context: previous?.spanContext ?? identity, attributes: { [A.linkType]: 'resumed_from' } })
    }
    const spanAttributes: Attributes = {
      [A.operationName]: 'invoke_agent',
      [A.agentName]: agentName,
      [A.conversationId]: event.sessionId,
      [A.providerName]: provider,
      [A.requestModel]: model,
      [A.runId]: event.runId,
    }
    if (event.parentRunId) spanAttributes[A.parentRunId] = event.parentRunId
    if (resumed) spanAttributes[A.resumedFromStep] = resumed.fromStep
    if (this.#captureContent && event.type === 'run.started') spanAttributes[A.inputMessages] = safeJson(inputMessages(event.input))
    const span = this.#tracer.startSpan(
      `invoke_agent ${agentName}`,
      { kind: SpanKind.INTERNAL, attributes: spanAttributes, links, startTime: event.timestamp },
      runSpanParent(event, agentName, identity, event.parentRunId ? this.#runs.get(event.parentRunId) : undefined),
    )
    this.#runs.set(event.runId, {
      runId: event.runId,
      sessionId: event.sessionId,
      agentName,
      provider,
      model,
      span,
      context: trace.setSpan(ROOT_CONTEXT, span),
      recording: span.isRecording(),
      startTime: event.timestamp,
      usage: emptyUsage,
      tools: new Map(),
      args: new Map(),
    })
    if (!this.#known.has(event.runId)) this.#remember_(event.runId, { agentName, modelId, spanContext: span.spanContext() })
  }

  #resumed(event: AgentEventOf<'run.resumed'>): void {
    const known = this.#known.get(event.runId)
    this.#start(event, event.agent ?? known?.agentName ?? 'agent', event.modelId ?? known?.modelId ?? 'unknown', { fromStep: event.fromStep })
  }

  #stepStarted(event: AgentEventOf<'step.started'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat) this.#endChat(run, run.chat.endTime ?? event.timestamp, undefined, run.usage)
    if (!run.recording) {
      run.chat = { span: idleSpan, step: event.step, startTime: event.timestamp, usageBefore: run.usage, text: '' }
      return
    }
    const span = this.#tracer.startSpan(
      `chat ${run.model}`,
      {
        kind: SpanKind.CLIENT,
        startTime: event.timestamp,
        attributes: {
          [A.operationName]: 'chat',
          [A.providerName]: run.provider,
          [A.requestModel]: run.model,
          // Every model call of the kernel streams (`LanguageModel.stream`).
          [A.requestStream]: true,
          [A.agentName]: run.agentName,
          [A.conversationId]: run.sessionId,
          [A.step]: event.step,
        },
      },
      run.context,
    )
    run.chat = { span, step: event.step, startTime: event.timestamp, usageBefore: run.usage, text: '' }
  }

  #toolCall(event: AgentEventOf<'tool.call'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat && run.chat.endTime === undefined) run.chat.endTime = event.timestamp
    if (this.#captureContent) run.args.set(event.callId, event.args)
  }

  #approvalRequested(event: AgentEventOf<'approval.requested'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat && run.chat.endTime === undefined) run.chat.endTime = event.timestamp
    run.span.addEvent('spindle.approval.requested', { [A.toolName]: event.toolName, [A.toolCallId]: event.callId }, event.timestamp)
  }

  #toolStarted(event: AgentEventOf<'tool.started'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat && run.chat.endTime === undefined) run.chat.endTime = event.timestamp
    run.tools.set(event.callId, {
      span: this.#toolSpan(run, event.toolName, event.callId, event.timestamp),
      toolName: event.toolName,
      startTime: event.timestamp,
      subRuns: 0,
    })
  }

  #toolSpan(run: RunTrace, toolName: string, callId: string, startTime: number): Span {
    if (!run.recording) return idleSpan
    const spanAttributes: Attributes = {
      [A.operationName]: 'execute_tool',
      [A.toolName]: toolName,
      [A.toolCallId]: callId,
      [A.toolType]: 'function',
      [A.agentName]: run.agentName,
      [A.conversationId]: run.sessionId,
    }
    if (this.#captureContent && run.args.has(callId)) spanAttributes[A.toolArguments] = safeJson(run.args.get(callId))
    return this.#tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, startTime, attributes: spanAttributes }, run.context)
  }

  #toolEnded(event: AgentEventOf<'tool.result'> | AgentEventOf<'tool.error'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat && run.chat.endTime === undefined) run.chat.endTime = event.timestamp
    let tool = run.tools.get(event.callId)
    run.tools.delete(event.callId)
    const reused = event.type === 'tool.result' ? event.reused === true : event.durationMs === 0
    if (!tool) {
      // No `tool.started`: a result reused from the journal, or a call refused before it ran (policy, denial, bad arguments).
      const startTime = event.timestamp - event.durationMs
      tool = { span: this.#toolSpan(run, event.toolName, event.callId, startTime), toolName: event.toolName, startTime, subRuns: 0 }
    }
    const { span } = tool
    if (reused) span.setAttribute(A.reused, true)
    if (event.type === 'tool.error') {
      span.setAttribute(A.errorType, event.error.code)
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message })
    } else if (this.#captureContent) {
      span.setAttribute(A.toolResult, safeJson(event.result))
    }
    span.end(event.timestamp)
    run.args.delete(event.callId)
    if (!this.#metrics) return
    const metricAttributes: Attributes = { [A.toolName]: event.toolName }
    if (event.type === 'tool.error') metricAttributes[A.errorType] = event.error.code
    this.#instruments.toolDuration.record(event.durationMs / 1000, metricAttributes)
  }

  #stepFinished(event: AgentEventOf<'step.finished'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    if (run.chat && run.chat.step === event.step) this.#endChat(run, run.chat.endTime ?? event.timestamp, event.finishReason, event.usage, event.response)
    else run.usage = event.usage
  }

  /** Ends the step's chat span with the usage of this model call (the difference of the run's running totals). */
  #endChat(run: RunTrace, endTime: number, finishReason: string | undefined, usageAfter: Usage, response?: ModelResponseInfo): void {
    const chat = run.chat!
    run.chat = undefined
    run.usage = usageAfter
    const input = usageAfter.inputTokens - chat.usageBefore.inputTokens
    const output = usageAfter.outputTokens - chat.usageBefore.outputTokens
    const answered = answeringModel(run.provider, run.model, response)
    if (run.recording) {
      if (answered.requestModel !== run.model) chat.span.updateName(`chat ${answered.requestModel}`)
      chat.span.setAttributes({ [A.providerName]: answered.provider, [A.requestModel]: answered.requestModel, [A.responseModel]: answered.responseModel })
      this.#describeChat(run, chat, endTime, finishReason, usageAfter, input, output)
    }
    if (!this.#metrics) return
    const metricAttributes: Attributes = {
      [A.operationName]: 'chat',
      [A.providerName]: answered.provider,
      [A.requestModel]: answered.requestModel,
      [A.responseModel]: answered.responseModel,
    }
    this.#instruments.operationDuration.record(Math.max(0, endTime - chat.startTime) / 1000, metricAttributes)
    this.#instruments.tokenUsage.record(input, { ...metricAttributes, [A.tokenType]: 'input' })
    this.#instruments.tokenUsage.record(output, { ...metricAttributes, [A.tokenType]: 'output' })
  }

  /**
   * Ends the chat span of a model call that failed (the run ended while the model had not answered): error status
   * and `error.type`, a duration point with `error.type`, and no token usage (the conventions forbid it then).
   */
  #failChat(run: RunTrace, endTime: number, errorType: string, message: string): void {
    const chat = run.chat!
    run.chat = undefined
    chat.span.setAttribute(A.errorType, errorType)
    chat.span.setStatus({ code: SpanStatusCode.ERROR, message })
    chat.span.end(endTime)
    if (!this.#metrics) return
    this.#instruments.operationDuration.record(Math.max(0, endTime - chat.startTime) / 1000, {
      [A.operationName]: 'chat',
      [A.providerName]: run.provider,
      [A.requestModel]: run.model,
      [A.errorType]: errorType,
    })
  }

  #describeChat(run: RunTrace, chat: ChatState, endTime: number, finishReason: string | undefined, usageAfter: Usage, input: number, output: number): void {
    const { span } = chat
    const cached = (usageAfter.cachedInputTokens ?? 0) - (chat.usageBefore.cachedInputTokens ?? 0)
    const reasoning = (usageAfter.reasoningTokens ?? 0) - (chat.usageBefore.reasoningTokens ?? 0)
    const cost = (usageAfter.costUsd ?? 0) - (chat.usageBefore.costUsd ?? 0)
    span.setAttribute(A.inputTokens, input)
    span.setAttribute(A.outputTokens, output)
    if (cached) span.setAttribute(A.cachedInputTokens, cached)
    if (reasoning) span.setAttribute(A.reasoningTokens, reasoning)
    if (cost) span.setAttribute(A.costUsd, cost)
    if (finishReason) span.setAttribute(A.finishReasons, [finishReason])
    if (this.#captureContent && (chat.text || finishReason))
      span.setAttribute(A.outputMessages, safeJson(outputMessages(this.#redact(chat.text), finishReason ?? 'stop')))
    span.end(endTime)
  }

  #ended(event: AgentEventOf<'run.finished'> | AgentEventOf<'run.failed'>): void {
    const run = this.#runs.get(event.runId)
    if (!run) return
    this.#runs.delete(event.runId)
    // A run that ended while its model had not answered (no output end seen): that model call failed.
    if (run.chat && run.chat.endTime === undefined && event.finishReason !== 'awaiting_approval') {
      this.#failChat(
        run,
        event.timestamp,
        event.type === 'run.failed' ? event.error.code : event.finishReason,
        event.type === 'run.failed' ? event.error.message : `the run ended (${event.finishReason}) during the model call`,
      )
    }
    // A suspended step's model call ends here (its `step.finished` comes after the resume runs its tools).
    if (run.chat) this.#endChat(run, run.chat.endTime ?? event.timestamp, event.finishReason === 'awaiting_approval' ? 'tool-calls' : undefined, event.usage)
    for (const [callId, tool] of run.tools) {
      tool.span.setAttribute(A.errorType, 'interrupted')
      tool.span.setStatus({ code: SpanStatusCode.ERROR, message: `the run ended (${event.finishReason}) before call ${callId} finished` })
      tool.span.end(event.timestamp)
    }
    endRunSpan(run, event, this.#captureContent)
    if (!this.#metrics) return
    const metricAttributes: Attributes = { [A.agentName]: run.agentName, [A.requestModel]: run.model, [A.finishReason]: event.finishReason }
    this.#instruments.runDuration.record(Math.max(0, event.timestamp - run.startTime) / 1000, metricAttributes)
    this.#instruments.runSteps.record(event.steps, metricAttributes)
  }

  /** Redacts text joined from events (each event was redacted alone, which misses a secret split between two). */
  #redact(text: string): string {
    const redactor = typeof this.#redactor === 'function' ? this.#redactor() : this.#redactor
    return redactor ? redactor.redact(text) : text
  }

  #remember_(runId: string, known: KnownRun): void {
    this.#known.set(runId, known)
    if (this.#known.size > this.#remember) this.#known.delete(this.#known.keys().next().value!)
  }
}

// A model step's request: the context built from the run's window (compacted when over the policy's threshold),
// the room kept for the answer, the share of the context a tool result may take, and the step's priced usage.
import { compactionFailed } from '../compaction/compaction-breaker.js'
import type { BuiltContext } from '../context/context-pipeline.js'
import { countMessagesTokens } from '../context/tokenizer.js'
import { ConfigurationError } from '../errors/errors.js'
import { costOf, findModelPrice, type ModelPrice } from '../observability/price-table.js'
import type { LanguageModel } from '../spec/language-model.js'
import type { Usage } from '../spec/messages.js'
import { isPending, type MaybePromise } from '../util/fast-path.js'
import type { RunCommit } from './run-commit.js'
import type { RunContext } from './run-context.js'
import type { RunEvents } from './run-events.js'
import type { ModelStepResult } from './model-step.js'

const continuationPrompt = 'Continue exactly where your previous answer stopped, without repeating anything.'

/**
 * Builds a run's model requests (context, compaction, answer room) and prices its steps. Built by
 * `modelRequestBuilder()` as one literal, its methods included: a class instance's hidden class dies at a full GC
 * when no run is alive, and the code compiled against it (see util/fast-path.ts).
 */
export class ModelRequestBuilder {
  declare readonly run: RunContext
  declare readonly events: RunEvents
  declare readonly commit: RunCommit
  /** The last model priced and its price. */
  declare lastPrice: { model: LanguageModel; price: ModelPrice | undefined } | undefined

  /** The step's request, compacted first when it is over the threshold (the window shrinks so that the whole request fits the target). */
  build(step: number, continuation: boolean): MaybePromise<BuiltContext> {
    const building = this.request(step, continuation)
    if (isPending(building)) return building.then((built) => this.compactIfOver(built, step, continuation))
    return this.compactIfOver(building, step, continuation)
  }

  compactIfOver(built: BuiltContext, step: number, continuation: boolean): MaybePromise<BuiltContext> {
    const budget = this.contextBudget()
    const { compaction } = this.run.deps.policy
    if (built.tokens <= budget * compaction.threshold) return built
    const overhead = built.tokens - this.run.init.window.tokens
    return this.compact(step, Math.max(0, Math.floor(budget * compaction.target) - overhead)).then((compacted) =>
      compacted ? this.request(step, continuation) : built,
    )
  }

  /** The step's request as the window stands: synchronous when nothing is queued and every context adapter is. */
  request(step: number, continuation: boolean): MaybePromise<BuiltContext> {
    const run = this.run
    // The window must hold every message of the run (a length continuation follows its answer directly).
    if (run.writer.queuedCount) return run.writer.commit().then(() => this.request(step, continuation))
    const { init, deps } = run
    const { window } = init
    const built = deps.context.buildNow(
      {
        runId: run.runId,
        sessionId: run.sessionId,
        step,
        agentName: init.agentName,
        instructions: init.instructions,
        model: init.model,
        window: window.entries,
        compaction: window.compaction,
        tools: init.scope.offered(deps.policy.tools),
        stores: deps.stores,
        runtime: init.runtime,
        signal: init.signal,
      },
      window.messages,
      window.tokens,
    )
    return isPending(built) ? built.then((request) => this.finishRequest(request, continuation)) : this.finishRequest(built, continuation)
  }

  finishRequest(built: BuiltContext, continuation: boolean): BuiltContext {
    if (continuation) built.request.messages = built.request.messages.concat({ role: 'user', content: continuationPrompt })
    // The answer must fit the room the budget kept free for it.
    built.request.maxOutputTokens ??= this.outputReserveTokens()
    return built
  }

  /** Compacts the window to `targetTokens`; records the compaction in the session log. */
  async compact(step: number, targetTokens: number, force = false): Promise<boolean> {
    const { deps, init } = this.run
    const { window } = init
    const tokensBefore = window.tokens
    const record = await deps.compaction.compact({
      sessionId: this.run.sessionId,
      window: window.entries,
      previous: window.compaction,
      targetTokens,
      countTokens: (messages) => countMessagesTokens(messages, deps.context.tokenizer),
      signal: init.signal,
      onStrategyError: (error, strategy) => this.events.emit(compactionFailed(step, strategy, error, deps.compaction.circuitOpen, deps.redactor)),
    })
    if (!record) return false
    if (!force && record.throughSeq <= (window.compaction?.throughSeq ?? 0)) return false
    await this.commit.appendNow([{ kind: 'compaction', compaction: record, runId: this.run.runId }])
    this.events.emit({ type: 'compaction.applied', step, strategy: record.strategy, throughSeq: record.throughSeq, tokensBefore, tokensAfter: window.tokens })
    return true
  }

  outputReserveTokens(): number {
    const { capabilities } = this.run.init.model
    return this.run.deps.policy.compaction.outputReserve ?? Math.min(capabilities.maxOutputTokens, Math.floor(capabilities.contextWindow / 4))
  }

  /**
   * A quarter of the context budget, at 3 bytes a token (JSON and code count about that; prose more): a few results
   * of one step then still leave room for the question and the answer. Only small windows make it bind: a 128k
   * model's share is far above the default `maxToolOutputBytes`.
   */
  toolOutputCap(): number {
    return Math.max(1_024, Math.floor(this.contextBudget() / 4) * 3)
  }

  /** The tokens a request may take: the model's window less the room kept for the answer. */
  contextBudget(): number {
    return Math.max(256, this.run.init.model.capabilities.contextWindow - this.outputReserveTokens())
  }

  /** A calibrating tokenizer learns from what the provider counted for the request it was sent. */
  observeTokens(built: BuiltContext, result: ModelStepResult): void {
    if (result.usage?.inputTokens) this.run.deps.context.tokenizer.observe?.(built.tokens, result.usage.inputTokens)
  }

  /** The step's usage with its cost, from the price table (looked up once per model, not per step). */
  priced(usage: Usage | undefined, model: LanguageModel): Usage | undefined {
    const { prices } = this.run.deps
    if (!usage || usage.costUsd !== undefined) return usage
    if (prices) {
      if (this.lastPrice?.model !== model) this.lastPrice = { model, price: findModelPrice(prices, model.provider, model.modelId) }
      const { price } = this.lastPrice
      if (price) return Object.assign({}, usage, { costUsd: costOf(usage, price) })
    }
    // A cost budget that cannot be counted would never stop the run: said, instead of spending without a limit.
    if (this.run.limits.budget.maxCostUsd !== undefined) {
      throw new ConfigurationError(
        `[spindle/core] policy.budget.maxCostUsd is set, but ${model.provider}:${model.modelId} has no price in extensions.prices and its provider reported no cost: the budget cannot be enforced. Add its price (extensions.prices) or remove maxCostUsd.`,
      )
    }
    return usage
  }
}

const methods = ModelRequestBuilder.prototype

/** The request builder of the run `run`. */
export function modelRequestBuilder(run: RunContext, events: RunEvents, commit: RunCommit): ModelRequestBuilder {
  return {
    run,
    events,
    commit,
    lastPrice: undefined,
    build: methods.build,
    compactIfOver: methods.compactIfOver,
    request: methods.request,
    finishRequest: methods.finishRequest,
    compact: methods.compact,
    outputReserveTokens: methods.outputReserveTokens,
    toolOutputCap: methods.toolOutputCap,
    contextBudget: methods.contextBudget,
    observeTokens: methods.observeTokens,
    priced: methods.priced,
  }
}

// Vercel AI SDK 6 on the same workload: a scripted LanguageModelV3 (no call recording) following the same script,
// the same zod schema and counter, `generateText` and `streamText` (full stream drained), every run asserted.
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import type { MockTurn } from '@spindle/core'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { convertArrayToReadableStream } from 'ai/test'
import { check } from '../harness.js'
import { addNumbers, addSchema, finalText, scriptTurn, toolCounter } from '../workload.js'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

function chunks(text: string, size: number): string[] {
  const out: string[] = []
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size))
  return out
}

/**
 * A LanguageModelV3 that answers the scripted turn `turnAt` picks for each call (`doGenerate` or `doStream`):
 * one `add` tool call per step, then the final text; streamed in chunks of 16 (tool input) and 8 (text). A plain
 * object rather than `ai/test`'s MockLanguageModelV3, which keeps every call's options: in a long-lived server that
 * list grows by ~18 KB a run and slows the AI SDK with GC work Spindle's `mockModel({ recordCalls: false })` does not
 * have.
 */
export function scriptedAiSdkModel(turnAt: (options: LanguageModelV3CallOptions) => MockTurn): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'mock-provider',
    modelId: 'mock-model-id',
    supportedUrls: {},
    doGenerate: async (options) => {
      const current = turnAt(options)
      const call = current.toolCalls?.[0]
      return {
        content: call
          ? [{ type: 'tool-call' as const, toolCallId: call.id!, toolName: call.name, input: JSON.stringify(call.args) }]
          : [{ type: 'text' as const, text: current.text! }],
        finishReason: { unified: call ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
        usage,
        warnings: [],
      }
    },
    doStream: async (options) => {
      const current = turnAt(options)
      const call = current.toolCalls?.[0]
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      if (call) {
        const input = JSON.stringify(call.args)
        parts.push({ type: 'tool-input-start', id: call.id!, toolName: call.name })
        for (const delta of chunks(input, 16)) parts.push({ type: 'tool-input-delta', id: call.id!, delta })
        parts.push({ type: 'tool-input-end', id: call.id! }, { type: 'tool-call', toolCallId: call.id!, toolName: call.name, input })
      } else {
        parts.push({ type: 'text-start', id: 't' })
        for (const delta of chunks(current.text!, 8)) parts.push({ type: 'text-delta', id: 't', delta })
        parts.push({ type: 'text-end', id: 't' })
      }
      parts.push({ type: 'finish', finishReason: { unified: call ? 'tool-calls' : 'stop', raw: undefined }, usage })
      return { stream: convertArrayToReadableStream(parts) }
    },
  }
}

/** A model per run: its turn is its own call count. */
function mockModel(steps: number) {
  let index = 0
  const model = scriptedAiSdkModel(() => scriptTurn(steps, index++))
  return { model, calls: () => index }
}

/** The workload's `add` tool as an AI SDK `tool()`. */
export const aiSdkAddTool = tool({ description: 'Adds two numbers', inputSchema: addSchema, execute: async (input) => addNumbers(input) })

export async function aiSdkGenerate(steps: number): Promise<void> {
  const { model, calls } = mockModel(steps)
  const before = toolCounter.executions
  const result = await generateText({ model, tools: { add: aiSdkAddTool }, prompt: 'go', stopWhen: stepCountIs(steps + 1) })
  check(result.text === finalText, `ai-sdk generateText answered "${result.text}"`)
  check(result.steps.length === steps + 1 && calls() === steps + 1, `ai-sdk generateText made ${calls()} model calls`)
  check(toolCounter.executions - before === steps, `ai-sdk generateText executed ${toolCounter.executions - before} tools`)
}

export async function aiSdkStream(steps: number): Promise<void> {
  const { model, calls } = mockModel(steps)
  const before = toolCounter.executions
  const result = streamText({ model, tools: { add: aiSdkAddTool }, prompt: 'go', stopWhen: stepCountIs(steps + 1) })
  let toolResults = 0
  for await (const part of result.fullStream) if (part.type === 'tool-result') toolResults++
  const text = await result.text
  check(text === finalText, `ai-sdk streamText answered "${text}"`)
  check(calls() === steps + 1 && toolResults === steps, `ai-sdk streamText made ${calls()} model calls, ${toolResults} tool results`)
  check(toolCounter.executions - before === steps, `ai-sdk streamText executed ${toolCounter.executions - before} tools`)
}

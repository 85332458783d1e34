// Formatting helpers for times, tokens, money and JSON.
import type { ModelOption, Usage } from './types'

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—'
  if (ms < 1) return '<1 ms'
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

export function cost(usage: Usage | undefined, model: ModelOption | undefined): string {
  if (!usage) return '—'
  if (usage.costUsd !== undefined) return `$${usage.costUsd.toFixed(4)}`
  if (!model?.pricing) return 'n/a'
  const dollars = (usage.inputTokens * model.pricing.input + usage.outputTokens * model.pricing.output) / 1_000_000
  return `$${dollars.toFixed(dollars < 0.01 ? 5 : 4)}`
}

export function tokens(usage: Usage | undefined): string {
  if (!usage) return '—'
  return `${usage.inputTokens.toLocaleString()} in · ${usage.outputTokens.toLocaleString()} out`
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined'
}

export function shortJson(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? ''
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

export function shortId(id: string | undefined): string {
  if (!id) return ''
  const [prefix, rest] = id.includes('_') ? [id.slice(0, id.indexOf('_') + 1), id.slice(id.indexOf('_') + 1)] : ['', id]
  return prefix + rest.slice(0, 8)
}

export function clock(timestamp: number | undefined): string {
  if (!timestamp) return ''
  return new Date(timestamp).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
}

export function inputText(input: unknown): string {
  if (typeof input === 'string') return input
  if (Array.isArray(input)) {
    const last = [...input].reverse().find((message) => message?.role === 'user')
    if (last) return typeof last.content === 'string' ? last.content : last.content.map((part: { text?: string }) => part.text ?? '').join(' ')
  }
  return ''
}

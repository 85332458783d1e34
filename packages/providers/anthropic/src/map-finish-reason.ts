// Anthropic `stop_reason` → Spindle finish reason.
import type { ModelFinishReason } from '@spindle/core'

export function mapStopReason(stopReason: string | null | undefined): ModelFinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'tool_use':
      return 'tool-calls'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'content-filter'
    case 'pause_turn':
      return 'other'
    default:
      return 'other'
  }
}

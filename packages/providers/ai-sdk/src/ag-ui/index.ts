// Public entry of @spindle/ai-sdk/ag-ui: a Spindle run as AG-UI events, and RunAgentInput as a run's input.
export { AgUiEventMapper, toAgUiEvents, toAgUiResponse, interruptIdSeparator, type AgUiEvent } from './ag-ui-events.js'
export { fromRunAgentInput, type FromRunAgentInputResult, type RunAgentInputLike } from './from-run-agent-input.js'

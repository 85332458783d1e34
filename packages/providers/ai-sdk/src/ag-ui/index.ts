// Public entry of @spindle/ai-sdk/ag-ui: a Spindle run as AG-UI events (with its state and the client's tools), and
// RunAgentInput as a run's input.
export { AgUiEventMapper, toAgUiEvents, toAgUiResponse, interruptIdSeparator, type AgUiEvent, type AgUiEventOptions } from './ag-ui-events.js'
export { fromRunAgentInput, type FromRunAgentInputResult, type RunAgentInputLike } from './from-run-agent-input.js'
export {
  AgUiStateRecorder,
  readRuntimeState,
  clientToolResultsKey,
  type AgUiStateSource,
  type AgUiStateRecorderOptions,
  type ReadRuntimeStateOptions,
} from './state.js'
export { clientTools, type AgUiClientTool, type ClientToolResult } from './client-tools.js'
export { diffJson, type JsonPatchOperation } from './json-patch.js'

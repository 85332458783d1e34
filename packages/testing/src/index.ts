// Public entry of @spindle/testing: conformance suites, wire-protocol servers and scripted-model helpers.
export {}
export {
  encodeSseEvent,
  startScriptedServer,
  type RecordedRequest,
  type RequestMatcher,
  type ScriptedEnding,
  type ScriptedHandler,
  type ScriptedResponse,
  type ScriptedServer,
  type ScriptedServerOptions,
  type SseEvent,
} from './wire/sse-server.js'

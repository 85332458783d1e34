// Public entry of @spindle/tools-code.
export { codeTool, codeToolSet, type CodeToolOptions, type CodeToolResult } from './code-tool.js'
export { runSandboxed, type GrantedFunction, type SandboxLimits, type SandboxResult, type SandboxRun } from './run-sandboxed.js'
export { CodeToolError, type CodeToolErrorCode } from './code-tool-error.js'

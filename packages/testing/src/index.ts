// Public entry of @spindle/testing: conformance suites, wire-protocol servers and scripted-model helpers.
export {}

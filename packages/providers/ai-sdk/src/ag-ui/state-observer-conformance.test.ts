// The runtime-observer conformance kit on AgUiStateRecorder: spec v1, and every event of a real run taken without throwing.
import { describeRuntimeObserver } from '@spindle/testing'
import { AgUiStateRecorder } from './index.js'

describeRuntimeObserver(() => new AgUiStateRecorder())
describeRuntimeObserver(() => new AgUiStateRecorder({ keys: ['todos'], maxRuns: 1 }))

// Public entry of @spindle/compaction-summarize: a compaction strategy that writes an incremental, sectioned summary.
export { summarizeCompaction, type SummarizeCompactionOptions } from './summarize-compaction.js'
export { parseSummary, renderSummary, summarySections, type SummarySection } from './summary-sections.js'
export { renderTranscript, type TranscriptOptions } from './render-transcript.js'

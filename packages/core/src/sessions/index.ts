export { type TranscriptDelta, transcriptDelta } from "./delta.js";
export {
  isTranscriptName,
  SESSIONS_SOURCE,
  SESSIONS_TIER,
  type SessionsConfig,
  scanTranscripts,
  transcriptFolder,
} from "./scan.js";
export {
  LINE_BREAK_MARK,
  malformedWarning,
  type RenderedTranscript,
  renderTranscript,
} from "./transcript.js";

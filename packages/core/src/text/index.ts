export {
  ANALYZER_VERSION,
  type Analyzer,
  type AnalyzerOptions,
  createAnalyzer,
  QUESTION_WORDS,
  queryTermsOf,
} from "./analyzer.js";
export { sha256Hex } from "./hash.js";
export { estimateTokens } from "./tokens.js";

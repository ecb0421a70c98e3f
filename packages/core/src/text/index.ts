export {
  ANALYZER_VERSION,
  type Analyzer,
  type AnalyzerOptions,
  createAnalyzer,
} from "./analyzer.js";
export { sha256Hex } from "./hash.js";
export { estimateTokens } from "./tokens.js";

export {
  ANALYZER_VERSION,
  type Analyzer,
  type AnalyzerOptions,
  createAnalyzer,
  QUESTION_WORDS,
  queryTermsOf,
} from "./analyzer.js";
export { CHARACTER_TERM_WEIGHT, isCharacterTerm, termFrequencyWeight } from "./character-terms.js";
export { sha256Hex } from "./hash.js";
export { estimateTokens } from "./tokens.js";

export { loadConfig, resolveConfig } from "./load.js";
export {
  configSchema,
  DEFAULT_MIN_SCORE,
  type EngramConfig,
  type EngramConfigInput,
} from "./schema.js";

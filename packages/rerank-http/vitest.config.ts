export { packageConfig as default } from "../../vitest.shared.js";

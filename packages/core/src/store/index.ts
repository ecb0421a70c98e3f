export type * from "./records.js";
export type * from "./store.js";

/**
 * Child-process entry of `engram-bench perf`'s first-query measurement: opens the workspace, asks
 * one query, answers over IPC. Started by `first-query.ts`; not meant to be run by hand.
 */
import { firstQueryWorker } from "./first-query.js";

await firstQueryWorker();

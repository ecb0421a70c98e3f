/**
 * Child-process entry of `engram-bench perf`'s first-query measurement: opens the workspace, asks
 * one query, answers over IPC. Started by `first-query.ts`; not meant to be run by hand. Like an
 * `engram` process, it limits V8's heap growth first.
 */
import { limitHeapGrowth } from "@engram/cli";
import { firstQueryWorker } from "./first-query.js";

limitHeapGrowth();
await firstQueryWorker();

/**
 * Child-process entry of `engram-bench perf`: runs one {@link PerfJob} (passed as JSON in argv)
 * and sends back `{ result }` or `{ error }` over the IPC channel, so each store's peak RSS is its
 * own. Started by `perf.ts` with `child_process.fork`; not meant to be run by hand. It runs with
 * the heap growth an `engram` process sets (`limitHeapGrowth`), so its figures are the CLI's.
 */
import { limitHeapGrowth } from "@engram/cli";
import { isEngramError } from "@engram/core";
import { type PerfJob, runPerfJob } from "./perf-measure.js";

async function main(): Promise<void> {
  limitHeapGrowth();
  if (!process.send) {
    process.stderr.write("perf-worker is started by `engram-bench perf`, not by hand\n");
    process.exitCode = 2;
    return;
  }
  let message: object;
  try {
    const job = JSON.parse(process.argv[2] ?? "") as PerfJob;
    message = { result: await runPerfJob(job) };
  } catch (error) {
    const text = isEngramError(error)
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
    message = { error: text };
  }
  // Exit once the answer is flushed: a store may keep handles (threads, timers) open.
  process.send(message, () => process.exit(0));
}

await main();

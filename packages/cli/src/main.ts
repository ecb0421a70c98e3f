// The `engram` process itself, loaded by `bin.ts` once Node's compile cache is on.
import { limitHeapGrowth } from "./heap-growth.js";
import { processIo } from "./output.js";
import { run } from "./program.js";
import { printEngramWarnings } from "./warnings.js";

// `engram search … | head` closes the pipe early: stop quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

limitHeapGrowth();
printEngramWarnings(processIo);
process.exitCode = await run(process.argv.slice(2));

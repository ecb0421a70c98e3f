#!/usr/bin/env node
// Runs the example agent loop: `node examples/agent-loop/dist/main.js [workspace]`.
// Without a workspace it uses a fresh temp folder and prints where it is, so you can read the
// Markdown the agent wrote (MEMORY.md, memory/YYYY-MM-DD.md).
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type LoopEvent, runAgentLoop } from "./loop.js";

/** The user's side of the conversation (the model is scripted: no API key needed). */
export const DEMO_SCRIPT = [
  "Remember: I always prefer answers in short bullet points.",
  "Remember that the staging deploy moved to Thursday 14:00.",
  "记住：数据库迁移由王芳负责，截止日期是周五。",
  "When is the staging deploy?",
  "谁负责数据库迁移？",
  "What format do I prefer for answers?",
] as const;

function print(event: LoopEvent): void {
  switch (event.type) {
    case "user":
      console.log(`\nuser> ${event.text}`);
      break;
    case "tool":
      console.log(
        `  ${event.silent ? "(silent) " : ""}tool ${event.name} ${event.args} → ${summary(event.result)}`,
      );
      break;
    case "assistant":
      console.log(`agent> ${event.text}`);
      break;
    case "flush":
      console.log(
        `\n[flush] session at ~${event.tokens} tokens ≥ threshold ${event.threshold} (cycle ${event.cycle}): ` +
          `silent memory turn ran${event.swallowed ? ", NO_REPLY swallowed" : ""}`,
      );
      break;
    case "compaction":
      console.log(
        `[compaction] ~${event.tokensBefore} → ~${event.tokensAfter} tokens; cycle ${event.cycle + 1} begins`,
      );
      break;
  }
}

function summary(result: unknown): string {
  const r = result as Record<string, unknown>;
  if (r.error) return `error ${JSON.stringify(r.error)}`;
  if (Array.isArray(r.results))
    return `${r.results.length} result(s)${r.degraded ? " (keyword search)" : ""}`;
  if (typeof r.path === "string") return `${r.path}:${String(r.startLine)}-${String(r.endLine)}`;
  return JSON.stringify(result).slice(0, 80);
}

const workspace = process.argv[2]
  ? resolve(process.argv[2])
  : await mkdtemp(join(tmpdir(), "engram-agent-loop-"));
await mkdir(workspace, { recursive: true });
console.log(`workspace: ${workspace}`);
await runAgentLoop({ workspace, script: DEMO_SCRIPT, onEvent: print });
console.log(
  `\nDone. Read the memory the agent wrote: ls ${workspace} ${join(workspace, "memory")}`,
);

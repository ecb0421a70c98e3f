import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import os from "node:os";
import path from "node:path";
import { createMemory, localDate, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { startUi, type UiOptions, type UiServer } from "../src/index.js";

/** The day `offset` days from today, `YYYY-MM-DD` (local time, as the timeline counts). */
export function day(offset: number): string {
  const now = new Date();
  return localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset));
}

/**
 * A workspace with English and Chinese memory: today's and yesterday's logs, four logs old
 * enough for the lifecycle to archive, a long-term MEMORY.md, a sensitive file, and a log with a
 * private span and two notes marked important (what a deterministic consolidation promotes).
 */
export async function sampleWorkspace(): Promise<string> {
  const ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "engram-ui-")));
  const files: Record<string, string> = {
    "MEMORY.md":
      "# Long-term Memory\n\n## 2026-01-01 09:00\n\nLin prefers advisory locks over Redis locks.\n\n## 2026-01-02 10:00\n\n用户偏好：回答先给结论，再给理由。\n\n## 2026-01-03 11:00\n\nThe staging database is db-staging-2.\n",
    [`memory/${day(0)}.md`]: `# ${day(0)}\n\n## 09:15\n\nDeployed v2.3 to staging; the rollback plan is in [the runbook](long-term/runbook.md).\n\n## 10:40\n\n长期记忆存储用户偏好，检索时优先返回。\n`,
    [`memory/${day(-1)}.md`]: `# ${day(-1)}\n\n## 16:00\n\nMigration blocker: the orders table lacks an index.\n\n<!-- engram:private -->\nThe on-call phone PIN is 4921.\n<!-- /engram:private -->\n\n## 17:30\n\nReviewed the <script>alert(1)</script> escaping bug.\n\n## 18:00\n\nDeploys freeze on Fridays. #important\n\n## 18:30\n\n每周五冻结部署，周一恢复 ⭐\n`,
    "memory/long-term/runbook.md":
      "# Runbook\n\n1. Roll back with `deploy rollback v2.2`.\n2. 通知值班同事。\n",
    "memory/long-term/secrets.md":
      "---\nsensitive: true\n---\n# Secrets\n\nThe vault key lives in 1Password.\n",
  };
  for (const offset of [-10, -11, -12, -13]) {
    files[`memory/${day(offset)}.md`] =
      `# ${day(offset)}\n\n## 08:00\n\nNote from ${offset} days: 第${-offset}天的笔记。\n`;
  }
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
  return ws;
}

/** Open the workspace's memory (SQLite, no provider) and index it. */
export async function openMemory(ws: string): Promise<Memory> {
  const memory = await createMemory({ workspace: ws, store: sqliteStore(), embedder: null });
  await memory.sync();
  return memory;
}

/** A page server over a fresh sample workspace. */
export async function startSample(options: Partial<UiOptions> = {}): Promise<{
  ws: string;
  memory: Memory;
  ui: UiServer;
  port: number;
  stop: () => Promise<void>;
}> {
  const ws = await sampleWorkspace();
  const memory = await openMemory(ws);
  const ui = await startUi({ memory, watch: false, ...options });
  const port = Number(new URL(ui.origin).port);
  return {
    ws,
    memory,
    ui,
    port,
    stop: async () => {
      await ui.close();
      await memory.close();
      await rm(ws, { recursive: true, force: true });
    },
  };
}

/** An HTTP answer. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A raw HTTP request to 127.0.0.1:`port` (node:http, so `Host` and `Origin` are sent exactly as
 * given, which fetch does not allow).
 */
export function request(
  port: number,
  pathAndQuery: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: pathAndQuery,
        method: options.method ?? "GET",
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

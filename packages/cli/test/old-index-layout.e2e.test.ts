import { join } from "node:path";
import type { SyncReport } from "@engram/core";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OpenAIWireServer } from "../../embed-openai/test/openai-wire-server.js";
import { engram } from "./helpers.js";
import { type OpenAIWorkspace, openAIWorkspace } from "./openai-workspace.js";

/**
 * An index written by an older @engram/store-sqlite is not migrated: it is emptied and rebuilt
 * from the files on open, keeping the embeddings it had cached, so upgrading pays for no
 * embedding again. The CLI in a child process, embedding through the real `openai` SDK against a
 * local server that speaks OpenAI's wire format.
 */
describe("engram on an index of an older layout", () => {
  let ws: string;
  let server: OpenAIWireServer;
  let env: NodeJS.ProcessEnv;
  const embeddingCalls = () => server.count("POST /embeddings");

  let workspace: OpenAIWorkspace;

  beforeEach(async () => {
    const files: Record<string, string> = {
      "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday. 部署窗口是周二。\n",
    };
    for (let i = 0; i < 20; i++) {
      files[`memory/2026-10-${String(i + 1).padStart(2, "0")}.md`] =
        `# Day ${i}\n\n## 10:00\nWorked on task ${i}: 修复 bug ${i} in the billing service.\n`;
    }
    workspace = await openAIWorkspace(files);
    ({ ws, server, env } = workspace);
  });
  afterEach(() => workspace.close());

  it("a layout-6 index (embeddings cached in its own table) is rebuilt without embedding again", async () => {
    const cold = await engram(["sync", "--json", "-w", ws], { env });
    expect(cold.code, cold.stderr).toBe(0);
    const chunks = (JSON.parse(cold.stdout) as SyncReport).embedding.embedded;
    expect(chunks).toBe(21);
    const paid = embeddingCalls();

    // Turn the index into what layout 6 (@engram/store-sqlite 0.1.0) kept: its embedding cache in
    // a table of its own, keyed without core's generation prefix, and no key → bytes map.
    const db = new Database(join(ws, ".engram", "index.sqlite"));
    db.exec(`
      CREATE TABLE embedding_cache (key TEXT PRIMARY KEY, embedding BLOB NOT NULL,
        dims INTEGER NOT NULL, last_used INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO embedding_cache SELECT substr(key, 13), value, 1536, 1 FROM key_value
        WHERE key LIKE 'embedding/0/%';
      DROP TABLE key_value;
    `);
    expect(db.prepare("SELECT count(*) FROM embedding_cache").pluck().get()).toBe(21);
    db.pragma("user_version = 6");
    db.close();

    const search = await engram(["search", "billing bug 7", "--json", "-w", ws], { env });
    expect(search.code, search.stderr).toBe(0);
    expect(search.stderr).toMatch(
      /warning: the index was written by an older version of engram \(it has layout 6, .*\); it is rebuilt from your Markdown files, with the embeddings it had cached/,
    );
    const response = JSON.parse(search.stdout) as {
      degraded: boolean;
      results: Array<{ path: string }>;
    };
    expect(response.degraded).toBe(false);
    expect(response.results[0]?.path).toBe("memory/2026-10-08.md");
    expect(embeddingCalls()).toBe(paid + 1); // the query only: every chunk came from the cache

    const status = await engram(["status", "--json", "-w", ws], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).store).toMatchObject({ files: 21, chunks: 21, vectors: 21 });
    const again = await engram(["sync", "--json", "-w", ws], { env });
    expect(JSON.parse(again.stdout).embedding).toMatchObject({ embedded: 0, requests: 0 });
    expect(again.stderr).not.toMatch(/older version/);
  });
});

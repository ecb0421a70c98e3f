import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { applyPlan, createMemory, type Memory, promote, promotionCandidates } from "@engram/core";
import { promoteToLongTerm } from "@engram/core/internal";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/** Every file's text under `root` (minus `.engram/`), by workspace path. */
async function allFiles(root: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) for (const [k, v] of await allFiles(root, child)) out.set(k, v);
    else out.set(child, await readFile(join(root, child), "utf8"));
  }
  return out;
}

const DAY = 86_400_000;
/** One distinct fact promoted every fifth day (and promoted again, restated, to be refused). */
const FACTS = [
  "the team ships on Tuesdays",
  "staging runs on db-7",
  "Lin prefers short answers",
  "回滚方案在 ops/rollback.md",
  "the cache lives in redis",
  "deploys need two approvals",
  "用户喜欢深色主题",
  "backups run nightly at 2am",
  "the API rate limit is 600 per minute",
  "on-call rotates weekly",
  "logs are kept for 30 days",
  "the VPN uses WireGuard",
];
const ALL_TIERS = ["short", "mid", "long", "archive"] as const;

/**
 * Sixty simulated days on real files and real SQLite: daily logs, sessions, projects that finish,
 * superseded decisions, promotions with duplicates, and a lifecycle apply every day. Afterwards
 * every line written is still in a file and found by search (archive included), and the index
 * followed every move without a full sync.
 */
describe("lifecycle over 60 days", () => {
  let ws: string;
  let memory: Memory | undefined;
  afterEach(async () => {
    await memory?.close();
    await removeDir(ws);
  });

  it("loses nothing and keeps the index in step", async () => {
    ws = await tempDir("engram-60days-");
    const start = new Date(2026, 0, 1, 10, 0).getTime();
    let now = new Date(start);
    const embedder = createHashingEmbedder();
    memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      embedder,
      clock: { now: () => new Date(now) },
      readConfigFile: false,
    });
    const m = memory;
    /** Unique token → where it was written (for the failure message). */
    const written = new Map<string, string>();
    let embeddedDuringApplies = 0;
    let stubs = 0;
    let merges = 0;
    let duplicatesRefused = 0;

    for (let d = 0; d < 60; d++) {
      now = new Date(start + d * DAY);
      const iso = now.toISOString();
      const token = (kind: string) => {
        const t = `${kind}${d}q`;
        return t;
      };
      const daily = token("daily");
      await m.appendDaily(`day ${d} ${daily} 第${d}天的记录`);
      written.set(daily, "daily log");

      const files: Record<string, string> = {};
      if (d % 3 === 0) {
        const t = token("session");
        files[`memory/short-term/sessions/s${d}.md`] =
          `---\nupdated: ${iso}\n${d % 6 === 0 ? "ended: true\n" : ""}---\n# Session ${d}\n\n${t} 会话内容\n`;
        written.set(t, "session");
      }
      if (d % 10 === 0) {
        const t = token("project");
        files[`memory/mid-term/projects/p${d}/status.md`] =
          `---\nstatus: active\ntitle: P${d}\n---\n# P${d}\n`;
        files[`memory/mid-term/projects/p${d}/notes.md`] =
          `# P${d}\n\n## Decisions\n\n- ${t} decision of project ${d}\n`;
        written.set(t, "project notes");
      }
      if (d % 10 === 5) {
        const id = `p${d - 5}`;
        const status = d === 25 ? "cancelled" : "done";
        files[`memory/mid-term/projects/${id}/status.md`] =
          `---\nstatus: ${status}\ntitle: ${id}\n---\n# ${id}\n`;
      }
      if (d % 7 === 0) {
        const t = token("decision");
        const date = iso.slice(0, 10);
        files[`memory/long-term/decisions/${date}_d${d}.md`] =
          `---\nstatus: accepted\ndate: ${date}\n---\n# D${d}\n\n${t} we decided\n`;
        written.set(t, "decision");
        if (d >= 14) {
          const oldDate = new Date(start + (d - 14) * DAY).toISOString().slice(0, 10);
          files[`memory/long-term/decisions/${oldDate}_d${d - 14}.md`] =
            `---\nstatus: superseded\ndate: ${oldDate}\nsuperseded_by: ${date}_d${d}.md\n---\n# D${d - 14}\n\ndecision${d - 14}q we decided\n`;
        }
      }
      if (Object.keys(files).length) {
        await writeFiles(ws, files);
        await m.sync({ paths: Object.keys(files) });
      }
      if (d % 5 === 0) {
        const t = token("fact");
        const fact = FACTS[d / 5] as string;
        const result = await promote(m, `${t}: ${fact}`, { now });
        expect(result.written, fact).toBe(true);
        written.set(t, "promoted");
        const again = await promote(m, `- ${t.toUpperCase()}: ${fact}.`, { now });
        if (!again.written) duplicatesRefused++;
      }
      if (d === 40) {
        // The typed op: project p40 (active) is promoted by hand and archived.
        const r = await promoteToLongTerm(m, "p40", { now });
        expect(r.promoted.map((p) => p.text)).toEqual(["project40q decision of project 40"]);
      }
      // Recall: the agent searches its recent notes.
      await m.search(`day ${d}`);
      await m.search(`第${d}天`);

      const before = embedder.textsEmbedded;
      const applied = await applyPlan(m, undefined, { now });
      expect(applied.outcome).toBe("committed");
      expect(applied.indexWarning).toBeUndefined();
      embeddedDuringApplies += embedder.textsEmbedded - before;
      stubs += applied.items.filter((i) => i.action === "supersede").length;
      merges += applied.items.filter((i) => i.collision === "appended").length;
    }

    // Every line is in a file...
    const files = await allFiles(ws);
    const everything = [...files.values()].join("\n");
    for (const [t, where] of written)
      expect(everything.includes(t), `${t} (${where}) in a file`).toBe(true);
    // ...and found by search across all tiers, in its tier or the archive.
    for (const [t, where] of written) {
      const { results } = await m.search(t, { tiers: ALL_TIERS, mode: "keyword", maxResults: 3 });
      expect(
        results.some((r) => r.snippet.includes(t)),
        `${t} (${where}) found by search`,
      ).toBe(true);
    }
    // The flow happened: logs, sessions, projects and superseded decisions reached the archive.
    const archived = [...files.keys()].filter((p) => p.startsWith("memory/archive/"));
    expect(archived.filter((p) => p.startsWith("memory/archive/daily/")).length).toBe(60 - 8);
    expect(archived.some((p) => p.startsWith("memory/archive/sessions/2026/"))).toBe(true);
    expect(archived.some((p) => p.startsWith("memory/archive/projects/p0/"))).toBe(true);
    expect(archived.some((p) => p.startsWith("memory/archive/decisions/"))).toBe(true);
    expect([...files.keys()].filter((p) => /^memory\/\d{4}-\d{2}-\d{2}\.md$/.test(p))).toHaveLength(
      8,
    );
    expect(duplicatesRefused).toBe(12);
    expect(stubs).toBeGreaterThan(0);
    // The archive is searched only on request.
    const oldLog = await m.search("daily0q", { mode: "keyword" });
    expect(oldLog.results.some((r) => r.snippet.includes("daily0q"))).toBe(false);
    const oldLogArchive = await m.search("daily0q", { mode: "keyword", tiers: ["archive"] });
    expect(oldLogArchive.results[0]).toMatchObject({
      path: "memory/archive/daily/2026-01-01.md",
      tier: "archive",
    });

    // The index followed every move with targeted syncs: nothing is pending.
    const status = await m.status();
    expect(status.pending).toMatchObject({ changed: 0, removed: 0 });
    // Moved text kept its vectors (embedding cache): only new text (pointer stubs, merged logs) was embedded.
    expect(embeddedDuringApplies).toBeLessThanOrEqual(stubs + merges);

    // Recall counts were kept for short-term text.
    const { candidates } = await promotionCandidates(m, { now });
    expect(candidates.every((c) => /^memory\/(\d{4}-\d{2}-\d{2}|short-term\/)/.test(c.path))).toBe(
      true,
    );
  }, 240_000);
});

import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { day, request, startSample } from "./fixtures.js";

/** The JSON API as scripts use it: the token, JSON in and out, the same calls as the CLI. */
describe("engram ui JSON API", () => {
  let s: Awaited<ReturnType<typeof startSample>>;
  const headers = () => ({
    authorization: `Bearer ${s.ui.token}`,
    "content-type": "application/json",
  });
  const get = async (p: string) => {
    const res = await request(s.port, p, { headers: headers() });
    return { status: res.status, json: JSON.parse(res.body) };
  };
  const post = async (p: string, body?: unknown) => {
    const res = await request(s.port, p, {
      method: "POST",
      headers: headers(),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: JSON.parse(res.body) };
  };
  const exists = (rel: string) =>
    stat(path.join(s.ws, rel)).then(
      () => true,
      () => false,
    );

  beforeAll(async () => {
    s = await startSample();
  });
  afterAll(() => s.stop());

  it("timeline: today and yesterday first, entries with their lines, pages of days", async () => {
    const page = (await get("/api/timeline?days=3")).json;
    expect(page.days.map((d: { date: string; label: string | null }) => [d.date, d.label])).toEqual(
      [
        [day(0), "today"],
        [day(-1), "yesterday"],
        [day(-10), null],
      ],
    );
    expect(
      page.days[0].logs[0].entries.map(
        (e: { heading: string; startLine: number; endLine: number }) => [
          e.heading,
          e.startLine,
          e.endLine,
        ],
      ),
    ).toEqual([
      ["09:15", 3, 5],
      ["10:40", 7, 9],
    ]);
    expect(page.totalDays).toBe(6);
    expect(page.nextBefore).toBe(day(-10));
    const next = (await get(`/api/timeline?days=3&before=${page.nextBefore}`)).json;
    expect(next.days.map((d: { date: string }) => d.date)).toEqual([day(-11), day(-12), day(-13)]);
    expect(next.nextBefore).toBeUndefined();
  });

  it("tiers: every file in its tier, folders with totals; a folder's files", async () => {
    const tiers = (await get("/api/tiers")).json as Array<{
      tier: string;
      files: number;
      folders: Array<{ folder: string }>;
    }>;
    expect(Object.fromEntries(tiers.map((t) => [t.tier, t.files]))).toEqual({
      short: 6,
      mid: 0,
      long: 3,
      archive: 0,
    });
    expect(tiers.find((t) => t.tier === "long")?.folders.map((f) => f.folder)).toEqual([
      ".",
      "memory/long-term",
    ]);
    const folder = (await get("/api/tiers?dir=memory%2Flong-term")).json;
    expect(folder.files.map((f: { name: string }) => f.name).sort()).toEqual([
      "runbook.md",
      "secrets.md",
    ]);
  });

  it("search: bad filters are 400 with the fix; results explain their score", async () => {
    const bad = await get("/api/search?q=x&tier=bogus");
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      hint: expect.stringContaining("short"),
    });
    expect((await get("/api/search?q=")).status).toBe(400);
    const res = (await get("/api/search?q=rollback&tier=long&scope=main")).json;
    expect(res.results.map((r: { path: string }) => r.path)).toEqual([
      "memory/long-term/runbook.md",
    ]);
    expect(res.results[0].why).toMatchObject({ fusion: "keyword", tierWeight: 1, decay: 1 });
    expect(res.results[0].marks.length).toBeGreaterThan(0);
  });

  it("lifecycle: approves some moves by id, refuses unknown ids, undoes; the page is told", async () => {
    const plan = (await get("/api/lifecycle/plan?scope=main")).json;
    expect(plan.moves).toHaveLength(4);
    const [a, b] = plan.moves as Array<{ id: string; from: string; to: string }>;
    if (!a || !b) throw new Error("no moves");

    expect((await post("/api/lifecycle/apply?scope=main", { approve: [] })).status).toBe(400);
    const stale = await post("/api/lifecycle/apply?scope=main", {
      approve: [a.id, "0123456789abcdef"],
    });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("LIFECYCLE_CONFLICT");
    expect(await exists(a.from)).toBe(true);

    const events: string[] = [];
    const stream = await fetch(`${s.ui.origin}/api/events`, {
      headers: { authorization: `Bearer ${s.ui.token}` },
    });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const readUntil = async (want: string) => {
      while (!events.join("").includes(want)) {
        const { value, done } = await reader.read();
        if (done) break;
        events.push(decoder.decode(value));
      }
    };
    await readUntil("event: ready");

    const applied = await post("/api/lifecycle/apply?scope=main", { approve: [a.id, b.id] });
    expect(applied.status).toBe(200);
    expect(applied.json).toMatchObject({
      approved: 2,
      rejected: 2,
      result: { outcome: "committed" },
    });
    expect(await exists(a.from)).toBe(false);
    expect(await exists(a.to)).toBe(true);
    expect((await get("/api/lifecycle/plan?scope=main")).json.moves).toHaveLength(2);
    await readUntil("event: changed");
    expect(events.join("")).toContain(a.to);
    await reader.cancel();

    const undone = await post("/api/lifecycle/undo?scope=main");
    expect(undone.status).toBe(200);
    expect(undone.json.kind).toBe("undo");
    expect(await exists(a.from)).toBe(true);
    expect((await get("/api/lifecycle/plan?scope=main")).json.moves).toHaveLength(4);
    const audit = (await get("/api/audit?scope=main")).json as Array<{ event: string }>;
    expect(audit.map((e) => e.event)).toContain("undo-committed");
  });

  it("consolidation: applies the approved half of the plan, refuses stale ids, undoes byte for byte", async () => {
    const before = await tree();
    const plan = (await get("/api/consolidation/plan?scope=main")).json;
    expect(plan.mode).toBe("deterministic");
    const ops = plan.operations as Array<{ id: string; ref: string; text: string }>;
    expect(ops.map((o) => o.text)).toEqual([
      "Deploys freeze on Fridays.",
      "每周五冻结部署，周一恢复",
    ]);
    expect(ops.map((o) => o.ref)).toEqual(["op-1", "op-2"]);
    const [english, chinese] = ops as [(typeof ops)[0], (typeof ops)[0]];

    expect((await post("/api/consolidation/apply?scope=main", { approve: [] })).status).toBe(400);
    // An id the plan does not hold (a page shown before the plan changed): nothing is written.
    const stale = await post("/api/consolidation/apply?scope=main", {
      approve: [chinese.id, "0123456789abcdef"],
    });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("LIFECYCLE_CONFLICT");
    expect(await tree()).toEqual(before);

    const applied = await post("/api/consolidation/apply?scope=main", { approve: [chinese.id] });
    expect(applied.status).toBe(200);
    expect(applied.json).toMatchObject({ approved: 1, rejected: 1 });
    const memory = await readFile(path.join(s.ws, "MEMORY.md"), "utf8");
    expect(memory).toContain("- 每周五冻结部署，周一恢复");
    expect(memory).not.toContain("Deploys freeze on Fridays.");
    const report = await readFile(path.join(s.ws, applied.json.report), "utf8");
    expect(report).toContain("not-approved");
    expect(report).toContain(english.text);

    const undone = await post("/api/consolidation/undo?scope=main");
    expect(undone.status).toBe(200);
    expect(undone.json).toMatchObject({ kind: "undo", outcome: "committed" });
    expect(await tree()).toEqual(before);
    // The same operations are proposed again, with the same ids.
    const again = (await get("/api/consolidation/plan?scope=main")).json;
    expect(again.operations.map((o: { id: string }) => o.id)).toEqual(ops.map((o) => o.id));
  });

  it("forget and update need a reason; forget is undone", async () => {
    const line = { path: "MEMORY.md", startLine: 13, endLine: 13 };
    const before = await readFile(path.join(s.ws, "MEMORY.md"), "utf8");
    expect(before.split("\n")[12]).toBe("The staging database is db-staging-2.");
    const noReason = await post("/api/forget?scope=main", { ...line, reason: " " });
    expect(noReason.status).toBe(400);
    expect(noReason.json.error.code).toBe("INVALID_ARGUMENT");
    expect(
      (await post("/api/update?scope=main", { ...line, text: "db-staging-3", reason: "" })).status,
    ).toBe(400);
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).toBe(before);

    const forgot = await post("/api/forget?scope=main", { ...line, reason: "moved to the wiki" });
    expect(forgot.status).toBe(200);
    expect(forgot.json.paths).toContain("MEMORY.md");
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).not.toContain("db-staging-2");
    expect((await post("/api/forget/undo?scope=main")).status).toBe(200);
    expect(await readFile(path.join(s.ws, "MEMORY.md"), "utf8")).toBe(before);
  });

  /** Every file of the workspace but the index, path → bytes. */
  async function tree(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const entry of await readdir(s.ws, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const rel = path.relative(s.ws, path.join(entry.parentPath, entry.name));
      if (rel.startsWith(".engram")) continue;
      out[rel] = (await readFile(path.join(s.ws, rel))).toString("base64");
    }
    return out;
  }
});

import { appendFile, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isEngramError } from "../src/errors.js";
import {
  applyPlan,
  planLifecycle,
  readAudit,
  recoverLifecycle,
  undoLastApply,
} from "../src/lifecycle/index.js";
import { projectCandidates } from "../src/lifecycle/project-candidates.js";
import { STATE_FILES, statePath } from "../src/lifecycle/state.js";
import {
  allLines,
  copyWorkspace,
  hostOf,
  NOW,
  richWorkspace,
  treeListing,
  writeFiles,
} from "./lifecycle-fixture.js";

const read = (ws: string, rel: string) => readFile(path.join(ws, rel), "utf8");
const exists = (ws: string, rel: string) =>
  stat(path.join(ws, rel)).then(
    () => true,
    () => false,
  );

describe("lifecycle plan", () => {
  it("plans every default rule with its reason, and changes nothing", async () => {
    const ws = await richWorkspace();
    const before = await treeListing(ws);
    const plan = await planLifecycle(hostOf(ws), { now: NOW });
    const byFrom = Object.fromEntries(plan.items.map((i) => [i.from, i]));

    // Retention 7: today (12th) and the 7 days before stay; the 1st..4th go.
    for (const d of ["01", "02", "03", "04"]) {
      expect(byFrom[`memory/2026-01-${d}.md`]).toMatchObject({
        rule: "daily-retention",
        to: `memory/archive/daily/2026-01-${d}.md`,
      });
    }
    expect(byFrom["memory/2026-01-05.md"]).toBeUndefined();
    expect(byFrom["memory/2026-01-02.md"]?.collision).toBe("appended");
    expect(byFrom["memory/2026-01-04.md"]?.reason).toMatch(/8 days before today \(keeps 7\)/);

    expect(byFrom["memory/short-term/sessions/s-old.md"]).toMatchObject({
      rule: "session-expired",
      to: "memory/archive/sessions/2026/01/10/s-old.md",
    });
    expect(byFrom["memory/short-term/sessions/s-ended.md"]).toMatchObject({
      rule: "session-ended",
    });
    expect(byFrom["memory/short-term/sessions/s-live.md"]).toBeUndefined();
    expect(byFrom["memory/short-term/current-session.md"]).toBeUndefined();

    expect(byFrom["memory/mid-term/projects/alpha"]).toMatchObject({
      rule: "project-done",
      kind: "folder",
      to: "memory/archive/projects/alpha-2",
      collision: "suffixed",
    });
    expect(byFrom["memory/mid-term/projects/alpha"]?.collected?.map((c) => c.text)).toEqual([
      "Use SQLite FTS5 for keyword search",
      "向量检索使用 sqlite-vec",
      "Batch embeddings to stay under the rate limit.",
    ]);
    expect(byFrom["memory/mid-term/projects/beta"]).toMatchObject({ rule: "project-cancelled" });
    expect(byFrom["memory/mid-term/projects/beta"]?.collected).toBeUndefined();
    expect(byFrom["memory/mid-term/projects/gamma"]).toBeUndefined();
    expect(byFrom["memory/long-term/decisions/2026-01-03_use-postgres.md"]).toMatchObject({
      rule: "decision-superseded",
      action: "supersede",
    });
    expect(byFrom["memory/long-term/decisions/2026-01-09_use-sqlite.md"]).toBeUndefined();

    expect(await treeListing(ws)).toEqual(before);
  });

  it("rules come from the config: retention, custom rules, bad placeholders", async () => {
    const ws = await richWorkspace();
    const longer = await planLifecycle(hostOf(ws, { lifecycle: { retentionDays: 30 } }), {
      now: NOW,
    });
    expect(longer.items.filter((i) => i.rule === "daily-retention")).toHaveLength(0);

    const custom = await planLifecycle(
      hostOf(ws, {
        lifecycle: {
          rules: [
            {
              name: "old-gamma",
              from: "memory/mid-term/projects/*/",
              when: { status: ["active"] },
              action: "archive",
              to: "memory/archive/active/{id}",
            },
          ],
        },
      }),
      { now: NOW },
    );
    expect(custom.items.map((i) => [i.rule, i.from, i.to])).toEqual([
      ["old-gamma", "memory/mid-term/projects/gamma", "memory/archive/active/gamma"],
    ]);

    const bad = hostOf(ws, {
      lifecycle: {
        rules: [{ name: "x", from: "memory/*.md", action: "archive", to: "memory/archive/{nope}" }],
      },
    });
    await expect(planLifecycle(bad, { now: NOW })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
    const outside = hostOf(ws, {
      lifecycle: {
        rules: [{ name: "x", from: "memory/*.md", action: "archive", to: "../{name}" }],
      },
    });
    await expect(planLifecycle(outside, { now: NOW })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
  });
});

describe("lifecycle and layouts", () => {
  it("finds daily logs where the layout keeps them (logs preset: memory/logs/)", async () => {
    const ws = await richWorkspace(0);
    await writeFiles(ws, {
      "memory/logs/2026-01-01.md": "# 2026-01-01\n\nBee log\n",
      "memory/logs/2026-01-11.md": "# 2026-01-11\n\nrecent\n",
      "memory/2026-01-01.md": "# not a log in this layout\n",
    });
    const plan = await planLifecycle(hostOf(ws, { layout: "logs" }), { now: NOW });
    const daily = plan.items.filter((i) => i.rule === "daily-retention");
    expect(daily.map((i) => [i.from, i.to])).toEqual([
      ["memory/logs/2026-01-01.md", "memory/archive/daily/2026-01-01.md"],
    ]);
  });
});

describe("lifecycle apply and undo", () => {
  it("applies the plan, leaves a pointer for superseded decisions, and undo restores the exact tree", async () => {
    const ws = await richWorkspace();
    const host = hostOf(ws);
    const original = await treeListing(ws);
    const lines = await allLines(ws);

    const result = await applyPlan(host, undefined, { now: NOW });
    expect(result.outcome).toBe("committed");

    // Daily log merged into its archived namesake, verbatim, nothing overwritten.
    const merged = await read(ws, "memory/archive/daily/2026-01-02.md");
    expect(merged).toContain("already archived morning note");
    expect(merged).toContain("第2天的笔记");
    expect(await exists(ws, "memory/2026-01-02.md")).toBe(false);
    // Project moved whole (nested folder too) beside the older archived alpha.
    expect(await read(ws, "memory/archive/projects/alpha-2/assets/diagram.md")).toContain("boxes");
    expect(await read(ws, "memory/archive/projects/alpha/notes.md")).toContain("older alpha");
    expect(await exists(ws, "memory/mid-term/projects/alpha")).toBe(false);
    expect(await exists(ws, "memory/mid-term/projects/gamma/status.md")).toBe(true);
    // Superseded decision: archived verbatim, a stub points at it.
    const stub = await read(ws, "memory/long-term/decisions/2026-01-03_use-postgres.md");
    expect(stub).toContain("archived_to: memory/archive/decisions/2026-01-03_use-postgres.md");
    expect(stub).toContain("Superseded by 2026-01-09_use-sqlite.md");
    expect(await read(ws, "memory/archive/decisions/2026-01-03_use-postgres.md")).toContain(
      "We chose Postgres.",
    );
    // Every line is still somewhere.
    const after = await allLines(ws);
    for (const line of lines) expect(after.has(line), line).toBe(true);

    // The collected decisions wait as candidates, pointing at the archived notes.
    const candidates = await projectCandidates(ws);
    expect(candidates.map((c) => [c.text, c.path])).toContainEqual([
      "向量检索使用 sqlite-vec",
      "memory/archive/projects/alpha-2/notes.md",
    ]);

    // A second plan finds nothing (stubs are not superseded again).
    expect((await planLifecycle(host, { now: NOW })).items).toEqual([]);

    const audit = await readAudit(ws);
    expect(audit.filter((e) => e.event === "step")).toHaveLength(result.steps);
    expect(audit.at(-1)?.event).toBe("committed");

    const undone = await undoLastApply(host, { now: NOW });
    expect(undone.outcome).toBe("committed");
    expect(await treeListing(ws)).toEqual(original);
    expect(await projectCandidates(ws)).toEqual([]);
    await expect(undoLastApply(host)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("undo refuses, touching nothing, when an archived file was changed since", async () => {
    const ws = await richWorkspace();
    const host = hostOf(ws);
    await applyPlan(host, undefined, { now: NOW });
    await appendFile(path.join(ws, "memory/archive/daily/2026-01-03.md"), "edited later\n");
    const before = await treeListing(ws);
    const error = await undoLastApply(host).catch((e: unknown) => e);
    expect(isEngramError(error, "LIFECYCLE_CONFLICT")).toBe(true);
    expect(await treeListing(ws)).toEqual(before);
  });

  it("a stale plan is refused before anything moves", async () => {
    const ws = await richWorkspace();
    const host = hostOf(ws);
    const plan = await planLifecycle(host, { now: NOW });
    await appendFile(path.join(ws, "memory/2026-01-01.md"), "late line\n");
    const before = await treeListing(ws);
    await expect(applyPlan(host, plan)).rejects.toMatchObject({ code: "LIFECYCLE_CONFLICT" });
    expect(await treeListing(ws)).toEqual(before);
    // A fresh plan carries the late line along.
    await applyPlan(host, undefined, { now: NOW });
    expect(await read(ws, "memory/archive/daily/2026-01-01.md")).toContain("late line");
  });

  it("a summariser puts a summary on top of archived files, keeping their full text", async () => {
    const ws = await richWorkspace(4);
    const host = hostOf(ws);
    const original = await treeListing(ws);
    const seen: string[] = [];
    const summarise = async ({
      kind,
      path: p,
      text,
    }: {
      kind: string;
      path: string;
      text: string;
    }) => {
      seen.push(`${kind} ${p}`);
      return `摘要：${text.split("\n").length} lines`;
    };
    await applyPlan(host, undefined, { now: NOW, summarise });
    const archived = await read(ws, "memory/archive/daily/2026-01-03.md");
    expect(archived).toBe(
      "> **Summary:** 摘要：6 lines\n\n# 2026-01-03\n\n## 10:00\n\nday 3 note; 第3天的笔记\n",
    );
    const session = await read(ws, "memory/archive/sessions/2026/01/10/s-old.md");
    expect(session.startsWith("---\nupdated: 2026-01-10T08:00:00\n---\n> **Summary:**")).toBe(true);
    expect(session).toContain("old session about vector indexes");
    expect(seen).toContain("archive memory/archive/daily/2026-01-03.md");
    expect((await undoLastApply(host)).outcome).toBe("committed");
    expect(await treeListing(ws)).toEqual(original);
  });

  it("two undos reverse two applies in order, and each undo frees only the copies it alone kept", async () => {
    const ws = await richWorkspace();
    const host = hostOf(ws);
    const blobDir = statePath(ws, STATE_FILES.blobDir);
    const heldBlobs = async () => (await readdir(blobDir).catch(() => [] as string[])).sort();
    const t0 = await treeListing(ws);
    await applyPlan(host, undefined, { now: NOW });
    const t1 = await treeListing(ws);
    const firstBlobs = await heldBlobs();
    expect(firstBlobs.length).toBeGreaterThan(0); // the superseded decision's text, for undo
    await applyPlan(host, undefined, { now: new Date(2026, 0, 20, 10, 0) });
    expect(await treeListing(ws)).not.toEqual(t1);
    await undoLastApply(host);
    expect(await treeListing(ws)).toEqual(t1);
    expect(await heldBlobs()).toEqual(firstBlobs);
    await undoLastApply(host);
    expect(await treeListing(ws)).toEqual(t0);
    expect(await heldBlobs()).toEqual([]);
  });
});

describe("lifecycle crash safety", () => {
  /** Every hook event of a full apply, so each can be made the crash point. */
  async function eventsOfApply(fixture: string): Promise<number> {
    const ws = await copyWorkspace(fixture);
    let events = 0;
    await applyPlan(hostOf(ws), undefined, { now: NOW, hook: () => void events++ });
    return events;
  }

  it("a crash at every step of an apply never loses or duplicates a file; the next run finishes it", async () => {
    // Two daily logs (one merged into the archive, one moved), sessions, a nested project folder
    // with a name collision, a superseded decision: every kind of step.
    const fixture = await richWorkspace(2);
    const reference = await copyWorkspace(fixture);
    await applyPlan(hostOf(reference), undefined, { now: NOW });
    const applied = await treeListing(reference);
    const lines = await allLines(fixture);
    const original = await treeListing(fixture);
    const events = await eventsOfApply(fixture);
    expect(events).toBeGreaterThan(20);

    for (let crashAt = 0; crashAt < events; crashAt++) {
      const ws = await copyWorkspace(fixture);
      let seen = 0;
      const crash = () => {
        if (seen++ === crashAt) throw new Error(`simulated crash at event ${crashAt}`);
      };
      await expect(applyPlan(hostOf(ws), undefined, { now: NOW, hook: crash })).rejects.toThrow(
        "simulated crash",
      );
      const mid = await allLines(ws);
      for (const line of lines) expect(mid.has(line), `event ${crashAt}: ${line}`).toBe(true);

      const recovered = await recoverLifecycle(hostOf(ws));
      expect(recovered?.outcome, `event ${crashAt}`).toBe("committed");
      expect(await treeListing(ws), `event ${crashAt}`).toEqual(applied);
      // The finished apply is undoable like any other (checked on a sample: undo is slow-ish).
      if (crashAt % 5 === 0) {
        await undoLastApply(hostOf(ws));
        expect(await treeListing(ws), `undo after event ${crashAt}`).toEqual(original);
      }
    }
  }, 120_000);

  it("a crash followed by an edit to a file still waiting to move rolls the apply back", async () => {
    const fixture = await richWorkspace();
    const ws = await copyWorkspace(fixture);
    let seen = 0;
    await expect(
      applyPlan(hostOf(ws), undefined, {
        now: NOW,
        hook: () => {
          if (seen++ === 3) throw new Error("simulated crash");
        },
      }),
    ).rejects.toThrow("simulated crash");
    // Someone edits the superseded decision (moved near the end) before the next run.
    await appendFile(
      path.join(ws, "memory/long-term/decisions/2026-01-03_use-postgres.md"),
      "note\n",
    );
    await writeFiles(fixture, {
      "memory/long-term/decisions/2026-01-03_use-postgres.md": await read(
        ws,
        "memory/long-term/decisions/2026-01-03_use-postgres.md",
      ),
    });
    const recovered = await recoverLifecycle(hostOf(ws));
    expect(recovered?.outcome).toBe("rolled-back");
    expect(await treeListing(ws)).toEqual(await treeListing(fixture));
    expect((await readAudit(ws)).some((e) => e.event === "rolled-back")).toBe(true);
  });

  it("a crash during undo is finished by the next run", async () => {
    const fixture = await richWorkspace();
    const ws = await copyWorkspace(fixture);
    await applyPlan(hostOf(ws), undefined, { now: NOW });
    let seen = 0;
    await expect(
      undoLastApply(hostOf(ws), {
        hook: () => {
          if (seen++ === 10) throw new Error("simulated crash");
        },
      }),
    ).rejects.toThrow("simulated crash");
    await recoverLifecycle(hostOf(ws));
    expect(await treeListing(ws)).toEqual(await treeListing(fixture));
  });
});

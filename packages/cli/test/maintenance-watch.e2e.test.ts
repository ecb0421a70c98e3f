import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  engram,
  eventually,
  removeDir,
  startWatchJson,
  stopChild,
  tempDir,
  type WatchChild,
  writeFiles,
} from "./helpers.js";

describe("maintenance on a schedule (built CLI)", () => {
  let ws: string;
  const watchers: WatchChild[] = [];
  afterEach(async () => {
    for (const w of watchers.splice(0)) await stopChild(w.child);
    await removeDir(ws);
  });

  it("engram watch runs a due pass once across two watchers and status shows the outcome", async () => {
    ws = await tempDir("engram-maintenance-");
    await writeFiles(ws, {
      "engram.config.json": JSON.stringify({ maintenance: { schedule: "every 6h" } }),
      "MEMORY.md": "# Long-term Memory\n\n- Lin prefers tea\n- lin prefers tea.\n",
    });
    watchers.push(await startWatchJson(ws), await startWatchJson(ws));
    const passes = () =>
      watchers
        .flatMap((w) => w.events)
        .filter((e) => e.event === "maintenance" && e.outcome === "ok");
    // An empty list is truthy: wait for a pass, not for the list.
    await eventually(async () => passes().length > 0, 60_000);
    // The other watcher's tick found the pass done (it is not due any more): it never runs one.
    await new Promise((r) => setTimeout(r, 2_000));
    const ran = passes();
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatchObject({
      trigger: "schedule",
      consolidation: { operations: 1, mode: "deterministic" },
    });
    expect(await readFile(join(ws, "MEMORY.md"), "utf8")).toBe(
      "# Long-term Memory\n\n- Lin prefers tea\n",
    );
    const status = await engram(["status", "-w", ws]);
    expect(status.stdout).toMatch(/Maintenance every 6h: last pass .*; not time yet/);
    expect(status.stdout).toMatch(/last run .*\(schedule\): ok — .*consolidation 1 operations/);
  }, 90_000);
});

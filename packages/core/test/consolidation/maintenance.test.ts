import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/load.js";
import {
  maintenanceStatus,
  noteSessionEnd,
  runMaintenance,
  startMaintenance,
} from "../../src/consolidation/maintenance.js";
import { lastSlot, nextSlot, parseSchedule } from "../../src/consolidation/schedule.js";
import { tryWorkspaceLock } from "../../src/workspace/lock.js";
import { hostOf, tempWorkspace, writeFiles } from "../lifecycle-fixture.js";
import { read } from "./helpers.js";

describe("schedules", () => {
  it("parses what the config accepts and refuses the rest", () => {
    expect(parseSchedule("daily 03:00")).toEqual({ kind: "daily", hour: 3, minute: 0 });
    expect(parseSchedule("hourly")).toEqual({ kind: "every", ms: 3_600_000 });
    expect(parseSchedule("every 6h")).toEqual({ kind: "every", ms: 6 * 3_600_000 });
    expect(parseSchedule("off")).toEqual({ kind: "off" });
    expect(parseSchedule("daily 25:00")).toBeNull();
    expect(parseSchedule("sometimes")).toBeNull();
    expect(() => resolveConfig({ maintenance: { schedule: "sometimes" } })).toThrow(/daily 03:00/);
  });

  it("finds the last and next slot", () => {
    const daily = parseSchedule("daily 03:00") as NonNullable<ReturnType<typeof parseSchedule>>;
    const at = new Date(2026, 2, 2, 1, 0);
    expect(lastSlot(daily, at, null)).toEqual(new Date(2026, 2, 1, 3, 0));
    expect(nextSlot(daily, at, null)).toEqual(new Date(2026, 2, 2, 3, 0));
  });
});

describe("maintenance", () => {
  async function workspace(): Promise<string> {
    const ws = await tempWorkspace();
    await writeFiles(ws, {
      "MEMORY.md": "# Long-term Memory\n\n- Lin prefers tea\n- lin prefers tea.\n",
      "memory/2026-03-01.md": "# 2026-03-01\n\n## 10:00\n\nnote\n",
    });
    return ws;
  }

  it("runs when the daily slot passed and the gates (24 h and 2 sessions) hold, once", async () => {
    const ws = await workspace();
    const config = {
      maintenance: { schedule: "daily 03:00", gates: { minHours: 24, minSessions: 2 } },
    };
    const host = hostOf(ws, config);
    const night = new Date(2026, 2, 2, 3, 5);
    let status = await maintenanceStatus(host, { now: night });
    expect(status).toMatchObject({ due: false, sessionsSinceLastPass: 0 });
    expect(status.why).toContain("sessions");
    await noteSessionEnd(ws, "a", new Date(2026, 2, 1, 12, 0));
    await noteSessionEnd(ws, "b", new Date(2026, 2, 1, 18, 0));
    status = await maintenanceStatus(host, { now: night });
    expect(status).toMatchObject({ due: true, sessionsSinceLastPass: 2 });

    const run = await runMaintenance(host, { trigger: "schedule", now: night });
    expect(run.outcome).toBe("ok");
    expect(run.consolidation).toMatchObject({ mode: "deterministic", operations: 1 });
    expect(await read(ws, "MEMORY.md")).toBe("# Long-term Memory\n\n- Lin prefers tea\n");
    const again = await runMaintenance(host, {
      trigger: "schedule",
      now: new Date(2026, 2, 2, 4, 0),
    });
    expect(again.outcome).toBe("skipped");
    const after = await maintenanceStatus(host, { now: new Date(2026, 2, 2, 4, 0) });
    expect(after.lastRun).toMatchObject({ outcome: "ok", trigger: "schedule" });
    expect(after.nextAt).toBe(new Date(2026, 2, 3, 3, 0).toISOString());
  });

  it("runs in one process at a time: a second caller is told it is busy", async () => {
    const ws = await workspace();
    const host = hostOf(ws, { maintenance: { schedule: "hourly" } });
    const release = await tryWorkspaceLock(ws, "maintenance");
    expect(release).not.toBeNull();
    expect((await runMaintenance(host, { trigger: "schedule" })).outcome).toBe("busy");
    await release?.();
    expect((await runMaintenance(host, { trigger: "schedule" })).outcome).toBe("ok");
  });

  it("a scheduler does nothing without a schedule, and ticks when one is due", async () => {
    const ws = await workspace();
    const off = startMaintenance(hostOf(ws));
    expect(await off.tick()).toBeNull();
    await off.stop();
    const runs: string[] = [];
    const on = startMaintenance(hostOf(ws, { maintenance: { schedule: "every 1h" } }), {
      onRun: (r) => runs.push(r.outcome),
      checkEveryMs: 3_600_000,
    });
    expect((await on.tick())?.outcome).toBe("ok");
    expect(await on.tick()).toBeNull();
    await on.stop();
    expect(runs).toEqual(["ok"]);
  });
});

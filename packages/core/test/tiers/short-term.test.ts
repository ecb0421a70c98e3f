import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTierApi } from "../../src/tiers/index.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";
import { fileHost, steppingClock } from "./host.js";

const KV = "memory/short-term/kv.json";

async function setup() {
  const ws = await tempDir();
  const clock = steppingClock("2026-03-04T10:00:00Z");
  const host = fileHost(ws, clock);
  return { ws, clock, host, api: createTierApi(host).shortTerm };
}

describe("short-term key/value", () => {
  it("stores readable JSON, reads values back, and expires them by the injected clock", async () => {
    const { ws, clock, api } = await setup();
    const entry = await api.set("current_topic", { 主题: "数据库迁移", step: 2 }, 60);
    expect(entry).toEqual({
      value: { 主题: "数据库迁移", step: 2 },
      expiresAt: "2026-03-04T10:01:00.000Z",
      updatedAt: "2026-03-04T10:00:00.000Z",
    });
    await api.set("user_mood", "专注");
    expect(await api.get("current_topic")).toEqual({ 主题: "数据库迁移", step: 2 });
    expect(JSON.parse(await readFile(path.join(ws, KV), "utf8"))).toEqual({
      current_topic: entry,
      user_mood: { value: "专注", expiresAt: null, updatedAt: "2026-03-04T10:00:00.000Z" },
    });

    clock.advance(60); // exactly at expiresAt: gone
    expect(await api.get("current_topic")).toBeUndefined();
    expect(await api.keys()).toEqual(["user_mood"]);
    // Still in the file until the next write…
    expect(await readFile(path.join(ws, KV), "utf8")).toContain("current_topic");
    await api.set("other", 1);
    // …which drops it.
    expect(Object.keys(JSON.parse(await readFile(path.join(ws, KV), "utf8")))).toEqual([
      "other",
      "user_mood",
    ]);
  });

  it("clears one key or all, counting only live ones", async () => {
    const { api, clock } = await setup();
    await api.set("a", 1, 10);
    await api.set("b", 2);
    await api.set("c", 3);
    expect(await api.clear("b")).toBe(1);
    expect(await api.clear("b")).toBe(0);
    clock.advance(11);
    expect(await api.clear()).toBe(1); // "a" had expired already
    expect(await api.keys()).toEqual([]);
  });

  it("keeps keys such as __proto__ as plain data", async () => {
    const { api } = await setup();
    await api.set("__proto__", { polluted: true });
    expect(await api.get("__proto__")).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts a hand-written bare value and refuses to overwrite a corrupt file", async () => {
    const { ws, api } = await setup();
    await writeFiles(ws, { [KV]: '{ "note": "written by hand" }' });
    expect(await api.get("note")).toBe("written by hand");
    await writeFiles(ws, { [KV]: "{ not json" });
    await expect(api.set("x", 1)).rejects.toMatchObject({ code: "FILE_INVALID" });
    expect(await readFile(path.join(ws, KV), "utf8")).toBe("{ not json");
  });

  it("validates keys, values and ttl with typed errors", async () => {
    const { api } = await setup();
    for (const bad of [
      () => api.set("", 1),
      () => api.set("a\nb", 1),
      () => api.get("x".repeat(300)),
    ]) {
      await expect(bad()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    }
    await expect(api.set("k", undefined)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(api.set("k", 10n)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(api.set("k", 1, 0)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(api.set("k", 1, Number.NaN)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("serialises concurrent writers: no update is lost", async () => {
    const { api } = await setup();
    await Promise.all(Array.from({ length: 20 }, (_, i) => api.set(`k${i}`, i)));
    expect((await api.keys()).length).toBe(20);
  });
});

describe("session files", () => {
  it("appends timestamped entries to current-session.md and reads them back", async () => {
    const { ws, host, api } = await setup();
    expect(await api.readSession()).toBe("");
    const first = await api.appendSession("用户在问数据库迁移的步骤");
    expect(first).toMatchObject({
      path: "memory/short-term/current-session.md",
      startLine: 3,
      created: false,
    });
    await api.appendSession("Second note");
    const text = await readFile(path.join(ws, "memory/short-term/current-session.md"), "utf8");
    expect(text).toMatch(/^# Current session\n\n## \d{4}-\d\d-\d\d \d\d:\d\d\n\n用户在问/);
    expect(await api.readSession()).toBe(text);
    expect(host.written).toContain("memory/short-term/current-session.md");
  });

  it("writes a named session to sessions/<id>.md and refuses ids that leave the folder", async () => {
    const { api } = await setup();
    const r = await api.appendSession("hello", { sessionId: "s-2026-03-04" });
    expect(r.path).toBe("memory/short-term/sessions/s-2026-03-04.md");
    expect(await api.readSession({ sessionId: "s-2026-03-04" })).toContain(
      "# Session s-2026-03-04",
    );
    for (const id of ["../x", "a/b", ".hidden", ""]) {
      await expect(api.appendSession("x", { sessionId: id })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
    await expect(api.appendSession("   ")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

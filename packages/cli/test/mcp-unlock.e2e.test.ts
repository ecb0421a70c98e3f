// `engram mcp` with `privacy.unlock: "required"`: sensitive long-term memory is withheld from the
// tools and the resources until the session is opened with --unlock; --scope group serves a
// shared conversation (issue 25, issue 20).
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "./helpers.js";
import { connectStdio, runCleanups, workspace } from "./mcp-client.js";

afterEach(runCleanups);

const FILES = {
  "engram.config.json": JSON.stringify({ privacy: { unlock: "required" } }),
  "MEMORY.md": "# Long-term Memory\n\n- Prefers okapi facts first.\n",
  "memory/long-term/health.md":
    "---\nsensitive: true\n---\n# Health\n\nOkapi-hair allergy; carries an epinephrine pen.\n",
  "memory/2026-03-04.md":
    "# 2026-03-04\n\nFed the okapi <!-- engram:private -->after my therapy session<!-- /engram:private --> today.\n",
};

const text = (result: { content?: unknown }) =>
  JSON.stringify((result as { structuredContent?: unknown }).structuredContent ?? result.content);

describe("engram mcp: explicit unlock and the group scope", () => {
  it("withholds sensitive long-term memory until --unlock", async () => {
    const ws = await workspace(FILES);
    const locked = await connectStdio(ws);
    const search = await eventually(async () => {
      const r = await locked.call("memory_search", { query: "epinephrine", minScore: 0 });
      return text(r).includes("health.md") ? r : undefined;
    }, 20_000);
    if (!search) throw new Error("the search never found the health file");
    expect(text(search)).toContain("withheld");
    expect(text(search)).not.toContain("epinephrine pen");
    const get = await locked.call("memory_get", {
      path: "memory/long-term/health.md",
      unlock: true,
    });
    expect(text(get)).not.toContain("epinephrine");
    const resource = await locked.client.readResource({
      uri: "memory://memory/long-term/health.md",
    });
    expect(JSON.stringify(resource)).not.toContain("epinephrine");

    const open = await connectStdio(ws, ["--unlock"]);
    const read = await open.call("memory_get", { path: "memory/long-term/health.md" });
    expect(text(read)).toContain("epinephrine pen");
  });

  it("--scope group hides personal and sensitive files and private spans", async () => {
    const ws = await workspace(FILES);
    const group = await connectStdio(ws, ["--scope", "group"]);
    // The server indexes in the background: wait for the first sync to land.
    const search = await eventually(async () => {
      const r = await group.call("memory_search", { query: "okapi", minScore: 0 });
      return text(r).includes("memory/2026-03-04.md") ? r : undefined;
    }, 20_000);
    if (!search) throw new Error("the group search never found the daily log");
    expect(text(search)).toContain("memory/2026-03-04.md");
    expect(text(search)).not.toMatch(/MEMORY\.md|therapy/);
    const refused = await group.call("memory_get", { path: "MEMORY.md" });
    expect(refused.isError).toBe(true);
    const { resources } = await group.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["memory://memory/2026-03-04.md"]);
  });
});

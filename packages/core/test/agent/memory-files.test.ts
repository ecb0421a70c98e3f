import { realpath } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  flushPrompts,
  listMemoryFiles,
  readMemoryFileText,
  recallPrompt,
} from "../../src/agent/index.js";
import { resolveConfig } from "../../src/config/index.js";
import { resolveLayout } from "../../src/workspace/presets.js";
import { readMemoryFile } from "../../src/workspace/read.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";

/** A host made of core's real config, layout and sandboxed reads over `workspace`. */
async function host(files: Record<string, string>) {
  const workspace = await realpath(await tempDir("engram-files-"));
  await writeFiles(workspace, files);
  const config = resolveConfig({});
  return {
    workspace,
    config,
    layout: resolveLayout(config),
    get: (path: string, options: { from?: number; lines?: number } = {}) =>
      readMemoryFile(workspace, path, options),
  };
}

const FILES = {
  "MEMORY.md": "# Long-term\n\n用户偏好：简洁\n",
  "memory/2026-03-04.md":
    "# 2026-03-04\n\nshipped\n<!-- engram:private -->\npin 4242\n<!-- /engram:private -->\nafter\n",
  "memory/long-term/health.md": "---\nsensitive: true\n---\nallergy\n",
  "memory/mid-term/projects/apollo/status.md": "green\n",
  "notes.md": "not memory\n",
};

describe("memory files for clients (MCP resources)", () => {
  it("lists every memory file with its tier in the main scope", async () => {
    const memory = await host(FILES);
    const files = await listMemoryFiles(memory);
    expect(files.map((f) => [f.path, f.tier])).toEqual([
      ["MEMORY.md", "long"],
      ["memory/2026-03-04.md", "short"],
      ["memory/long-term/health.md", "long"],
      ["memory/mid-term/projects/apollo/status.md", "mid"],
    ]);
    expect(files[0]).toMatchObject({ bytes: Buffer.byteLength(FILES["MEMORY.md"]) });
    expect(Date.parse(files[0]?.modified ?? "")).not.toBeNaN();
    expect((await readMemoryFileText(memory, "MEMORY.md")).text).toContain("用户偏好：简洁");
  });

  it("keeps personal, sensitive and private content out of the group scope", async () => {
    const memory = await host(FILES);
    const group = await listMemoryFiles(memory, { scope: "group" });
    expect(group.map((f) => f.path)).toEqual([
      "memory/2026-03-04.md",
      "memory/mid-term/projects/apollo/status.md",
    ]);
    const log = await readMemoryFileText(memory, "memory/2026-03-04.md", { scope: "group" });
    expect(log.text).toContain("shipped");
    expect(log.text).toContain("after");
    expect(log.text).not.toContain("4242");
    for (const path of ["MEMORY.md", "memory/long-term/health.md"]) {
      await expect(readMemoryFileText(memory, path, { scope: "group" })).rejects.toMatchObject({
        code: "PATH_NOT_ALLOWED",
      });
    }
    await expect(readMemoryFileText(memory, "notes.md")).rejects.toMatchObject({
      code: "PATH_NOT_ALLOWED",
    });
  });
});

describe("prompts for hosts", () => {
  it("fill the flush prompt's date and honour the config's wording", () => {
    expect(flushPrompts(undefined, "2026-03-04").user).toContain("memory/2026-03-04.md");
    expect(flushPrompts({ userPrompt: "记下 YYYY-MM-DD 的要点" }, "2026-03-04")).toMatchObject({
      system: expect.stringMatching(/compaction/),
      user: "记下 2026-03-04 的要点",
    });
  });

  it("ask to recall a topic through the tools, with citations", () => {
    const text = recallPrompt("  部署计划 ");
    expect(text).toMatch(/^Recall what you know about: 部署计划\n/);
    expect(text).toMatch(/memory_search/);
    expect(text).toMatch(/path:start-end/);
  });
});

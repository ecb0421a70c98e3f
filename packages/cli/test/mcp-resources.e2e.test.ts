// `engram mcp` over stdio: memory files as resources (list, read, subscribe) and the prompts.
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "./helpers.js";
import { connectStdio, runCleanups, workspace } from "./mcp-client.js";

afterEach(runCleanups);

const FILES = {
  "MEMORY.md": "# Long-term Memory\n\n用户偏好：先给结论。\n",
  "memory/2026-03-04.md": "# 2026-03-04\n\n## 10:00\n\nShipped v2.3.\n",
  "memory/long-term/项目/决定.md": "# 决定\n\n选用 SQLite。\n",
  "notes.md": "not memory\n",
};

describe("engram mcp (stdio): resources", () => {
  it("lists the memory files as memory:// resources and reads them (Chinese paths too)", async () => {
    const { client } = await connectStdio(await workspace(FILES));
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "memory://MEMORY.md",
      "memory://memory/2026-03-04.md",
      "memory://memory/long-term/%E9%A1%B9%E7%9B%AE/%E5%86%B3%E5%AE%9A.md",
    ]);
    expect(resources[0]).toMatchObject({
      name: "MEMORY.md",
      mimeType: "text/markdown",
      size: Buffer.byteLength(FILES["MEMORY.md"]),
      description: "long-term memory",
      annotations: { lastModified: expect.any(String) },
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe("memory://{+path}");

    const memory = await client.readResource({ uri: "memory://MEMORY.md" });
    expect(memory.contents[0]).toMatchObject({
      uri: "memory://MEMORY.md",
      mimeType: "text/markdown",
      text: "# Long-term Memory\n\n用户偏好：先给结论。",
    });
    const zh = await client.readResource({ uri: resources[2]?.uri ?? "" });
    expect(zh.contents[0]).toMatchObject({ text: expect.stringContaining("选用 SQLite") });
    // Written by hand, not URL-encoded: the same file.
    const raw = await client.readResource({ uri: "memory://memory/long-term/项目/决定.md" });
    expect(raw.contents[0]).toMatchObject({ text: expect.stringContaining("选用 SQLite") });

    // The memory_get sandbox holds: no file outside memory, no escape, a missing file is named.
    await expect(client.readResource({ uri: "memory://notes.md" })).rejects.toThrow(
      /PATH_NOT_ALLOWED/,
    );
    await expect(client.readResource({ uri: "memory://../etc/passwd" })).rejects.toThrow(
      /PATH_OUTSIDE_WORKSPACE|PATH_NOT_ALLOWED/,
    );
    await expect(
      client.readResource({ uri: "memory://memory/2099-01-01.md" }),
    ).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/FILE_NOT_FOUND/) });
  });

  it("tells a subscribed client when a file changes, and every client when files come and go", async () => {
    const ws = await workspace(FILES);
    const { client } = await connectStdio(ws);
    const updated: string[] = [];
    let listChanged = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    await client.subscribeResource({ uri: "memory://MEMORY.md" });
    // The watcher is ready once the first sync is through; edits before that may be folded in.
    await eventually(async () => {
      await appendFile(join(ws, "MEMORY.md"), "\n新的偏好：中文。\n");
      return eventually(async () => updated.includes("memory://MEMORY.md"), 1_500, 50);
    }, 20_000);
    const read = await client.readResource({ uri: "memory://MEMORY.md" });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining("新的偏好：中文。") });

    await writeFile(join(ws, "memory", "2026-03-05.md"), "# 2026-03-05\n\nnew day\n");
    expect(await eventually(async () => listChanged > 0, 20_000)).toBe(true);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain("memory://memory/2026-03-05.md");
    // Not subscribed to the new log: no update for it.
    expect(updated).not.toContain("memory://memory/2026-03-05.md");

    await client.unsubscribeResource({ uri: "memory://MEMORY.md" });
    const before = updated.length;
    await appendFile(join(ws, "MEMORY.md"), "\n再一条。\n");
    await writeFile(join(ws, "memory", "2026-03-06.md"), "# 2026-03-06\n");
    const seen = listChanged;
    expect(await eventually(async () => listChanged > seen, 20_000)).toBe(true);
    expect(updated.length).toBe(before);
  });
});

describe("engram mcp (stdio): prompts", () => {
  it("serves recall (with its topic) and flush (with today's log)", async () => {
    const { client } = await connectStdio(await workspace(FILES));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["recall", "flush"]);
    expect(prompts[0]?.arguments).toEqual([
      expect.objectContaining({ name: "topic", required: true }),
    ]);
    const recall = await client.getPrompt({ name: "recall", arguments: { topic: "部署计划" } });
    expect(recall.messages).toEqual([
      {
        role: "user",
        content: {
          type: "text",
          text: expect.stringMatching(/^Recall what you know about: 部署计划\n/),
        },
      },
    ]);
    const flush = await client.getPrompt({ name: "flush" });
    const today = new Date();
    const date = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${String(today.getDate()).padStart(2, "0")}`;
    expect(flush.messages[0]?.content).toMatchObject({
      type: "text",
      text: expect.stringContaining(`memory/${date}.md`),
    });
    expect(JSON.stringify(flush.messages)).toMatch(/compaction/);
  });
});

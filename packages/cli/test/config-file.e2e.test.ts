import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/** How `engram.config.json` is read from disk (issue 20, item 19; the bad-input corpus). */
describe("engram.config.json on disk", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await removeDir(d);
  });
  const workspace = async () => {
    const ws = await tempDir("engram-config-file-");
    dirs.push(ws);
    await writeFiles(ws, {
      "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday. 部署窗口是周二\n",
    });
    return ws;
  };

  it("accepts a UTF-8 byte-order mark (Windows editors write one)", async () => {
    const ws = await workspace();
    await writeFile(join(ws, "engram.config.json"), '\uFEFF{ "search": { "maxResults": 1 } }\n');
    const { code, stdout, stderr } = await engram(["search", "deploy", "--json", "-w", ws]);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).results).toHaveLength(1);
  });

  it("says which file is wrong when it is a folder or not JSON, with exit code 2", async () => {
    const ws = await workspace();
    await mkdir(join(ws, "engram.config.json"));
    const folder = await engram(["status", "-w", ws]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/engram\.config\.json is a folder, not a file \(remove/);

    const binary = await workspace();
    await writeFile(
      join(binary, "engram.config.json"),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x00]),
    );
    const garbage = await engram(["status", "-w", binary]);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toMatch(/engram\.config\.json is not valid JSON/);
    expect(`${folder.stderr}${garbage.stderr}`).not.toMatch(/UNEXPECTED|at .*\.js:\d+/);
  });
});

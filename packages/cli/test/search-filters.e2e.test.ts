import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/** `engram search --source` and `--scope`, on a workspace with transcripts and a private block. */
describe("engram search filters", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, {
      "engram.config.json": JSON.stringify({ sessions: { enabled: true } }),
      "MEMORY.md": "# Long-term Memory\n\nThe okapi is the user's favourite animal.\n",
      "memory/2026-03-04.md":
        "# 2026-03-04\n\nSaw an okapi at the zoo.\n\n<!-- engram:private -->\nokapi 密码: 1234\n<!-- /engram:private -->\n",
      "sessions/s1.jsonl": `${JSON.stringify({ role: "user", content: "tell me about the okapi" })}\n`,
    });
  });
  afterEach(() => removeDir(ws));

  const paths = async (...args: string[]) => {
    const run = await engram(["search", "okapi", "--json", "--min-score", "0", ...args, "-w", ws]);
    expect(run).toMatchObject({ code: 0 });
    return (JSON.parse(run.stdout).results as Array<{ path: string }>).map((r) => r.path).sort();
  };

  it("--source picks transcripts or memory files; --scope group drops what is personal or private", async () => {
    expect(await paths("--source", "sessions")).toEqual(["sessions/s1.jsonl"]);
    expect(await paths("--source", "memory")).toEqual(["MEMORY.md", "memory/2026-03-04.md"]);
    const group = await paths("--scope", "group", "--source", "memory");
    expect(group).not.toContain("MEMORY.md");
    const run = await engram(["search", "密码", "--json", "--scope", "group", "-w", ws]);
    expect(JSON.parse(run.stdout).results).toEqual([]);
  });

  it("refuses an unknown source or scope with a usage error", async () => {
    const bad = await engram(["search", "okapi", "--source", "chats", "-w", ws]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--source");
    expect((await engram(["search", "okapi", "--scope", "team", "-w", ws])).code).toBe(2);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * Issue 20, items 6–8 and the nanobot layout: private spans wherever they open and close, any
 * `MEMORY.md` long-term and main-scope only, public lines next to private ones still findable in
 * the group scope, and nothing private in a group result, snippet, score or ranking.
 */
describe("private content never leaves the main scope", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir("engram-privacy-");
  });
  afterEach(() => removeDir(ws));

  interface Hit {
    path: string;
    snippet: string;
    startLine: number;
    endLine: number;
    tier: string;
    source: string;
    scores: Record<string, number>;
  }
  const search = async (query: string, ...args: string[]) => {
    const run = await engram(["search", query, "--json", "--min-score", "0", ...args, "-w", ws]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as { results: Hit[] };
  };

  it("honours an inline private span on one line (item 6)", async () => {
    await writeFiles(ws, {
      "memory/2026-03-04.md":
        "# 2026-03-04\n\nmy pin is <!-- engram:private -->4242 quetzal<!-- /engram:private --> for the garage\n",
    });
    expect((await search("quetzal", "--scope", "group")).results).toEqual([]);
    expect((await search("4242", "--scope", "group")).results).toEqual([]);
    // The public words of the same line stay findable, the span redacted.
    const group = (await search("garage", "--scope", "group")).results;
    expect(group.map((r) => r.path)).toEqual(["memory/2026-03-04.md"]);
    expect(group[0]?.snippet).toContain("my pin is");
    expect(group[0]?.snippet).toContain("for the garage");
    expect(JSON.stringify(group)).not.toMatch(/quetzal|4242/);
    // The main scope sees everything.
    const main = (await search("quetzal")).results;
    expect(main[0]?.snippet).toContain("4242 quetzal");
    expect(main[0]?.source).toBe("memory");
  });

  it("honours spans that open inline and close lines later, and unclosed ones (item 6)", async () => {
    await writeFiles(ws, {
      "memory/2026-03-05.md": [
        "# 2026-03-05",
        "",
        "lunch with Ana <!-- engram:private -->she told me",
        "her quetzal diagnosis",
        "in confidence <!-- /engram:private --> then the okapi talk",
        "",
      ].join("\n"),
      "memory/2026-03-06.md": [
        "# 2026-03-06",
        "",
        "standup about the okapi",
        "<!-- engram:private -->",
        "quetzal salary figures",
        "",
        "more quetzal notes",
        "",
      ].join("\n"),
    });
    expect((await search("quetzal", "--scope", "group")).results).toEqual([]);
    expect((await search("confidence", "--scope", "group")).results).toEqual([]);
    const okapi = (await search("okapi", "--scope", "group")).results;
    expect(okapi.map((r) => r.path).sort()).toEqual([
      "memory/2026-03-05.md",
      "memory/2026-03-06.md",
    ]);
    expect(JSON.stringify(okapi)).not.toMatch(/quetzal|confidence|diagnosis|salary/);
    // The unclosed span is reported by the sync (private to the end of the file).
    const sync = await engram(["sync", "--force", "--json", "-w", ws]);
    const warnings = JSON.parse(sync.stdout).warnings as string[];
    expect(warnings.join("\n")).toMatch(/memory\/2026-03-06\.md:4.*never closed/);
    expect((await search("quetzal")).results.length).toBe(2);
  });

  it("keeps a public line that shares a chunk with a private block findable in the group scope (item 8)", async () => {
    await writeFiles(ws, {
      "memory/2026-03-07.md": [
        "# 2026-03-07",
        "",
        "The okapi enclosure reopens on Friday.",
        "<!-- engram:private -->",
        "door code quetzal-7781",
        "<!-- /engram:private -->",
        "Bring the visitor passes.",
        "",
      ].join("\n"),
    });
    const group = (await search("okapi", "--scope", "group", "--mode", "keyword")).results;
    expect(group.map((r) => r.path)).toEqual(["memory/2026-03-07.md"]);
    expect(group[0]?.snippet).toContain("The okapi enclosure reopens on Friday.");
    expect(group[0]?.snippet).toContain("Bring the visitor passes.");
    expect(JSON.stringify(group)).not.toMatch(/quetzal|7781|door code/);
    // A group result never carries the raw BM25 value, which counts every chunk of the index.
    expect(group[0]?.scores.text).toBeUndefined();
    expect((await search("door", "--scope", "group")).results).toEqual([]);
  });

  it("private chunks never take a public result's place in the group ranking", async () => {
    // More private chunks about zebras than the candidate pool holds (6 × 4), all ranking above
    // the one public zebra line, which has to come out first in the group scope all the same.
    const privateDays: Record<string, string> = {};
    for (let d = 1; d <= 30; d++) {
      const day = String(d).padStart(2, "0");
      privateDays[`memory/2026-04-${day}.md`] =
        `# 2026-04-${day}\n\n<!-- engram:private -->\nzebra zebra zebra zebra notes ${d}\n<!-- /engram:private -->\n`;
    }
    await writeFiles(ws, {
      ...privateDays,
      "memory/2026-05-01.md":
        "# 2026-05-01\n\nA long public entry that mentions the zebra once among many other words about logistics, suppliers, trucks and schedules.\n",
    });
    const group = (await search("zebra", "--scope", "group", "--mode", "keyword")).results;
    expect(group.map((r) => r.path)).toEqual(["memory/2026-05-01.md"]);
    expect(group[0]?.snippet).not.toContain("notes");
  });

  it("treats any MEMORY.md as long-term and main-scope only (item 7)", async () => {
    await writeFiles(ws, {
      "memory/MEMORY.md": "# Long-term\n\nAlice is allergic to penicillin.\n",
      "team/MEMORY.md": "# Team\n\nAlice runs the Tuesday sync.\n",
      "memory/2026-03-08.md": "# 2026-03-08\n\nMet Alice at the office.\n",
      "engram.config.json": JSON.stringify({ extraPaths: ["team"] }),
    });
    const group = (await search("Alice", "--scope", "group")).results;
    expect(group.map((r) => r.path)).toEqual(["memory/2026-03-08.md"]);
    const main = (await search("penicillin")).results;
    expect(main[0]).toMatchObject({ path: "memory/MEMORY.md", tier: "long" });
    const ctx = await engram(["context", "--scope", "group", "--json", "-w", ws]);
    expect(ctx.code).toBe(0);
    expect(ctx.stdout).not.toContain("penicillin");
  });

  it("engram context --scope group redacts inline spans and keeps the public words", async () => {
    const today = new Date();
    const date = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${String(today.getDate()).padStart(2, "0")}`;
    await writeFiles(ws, {
      [`memory/${date}.md`]: `# ${date}\n\nmy pin is <!-- engram:private -->4242 quetzal<!-- /engram:private --> for the garage\n`,
    });
    const ctx = await engram(["context", "--scope", "group", "--json", "-w", ws]);
    expect(ctx.code).toBe(0);
    const text = JSON.parse(ctx.stdout).text as string;
    expect(text).toContain("my pin is");
    expect(text).toContain("for the garage");
    expect(text).not.toMatch(/quetzal|4242/);
  });
});

describe("engram init --layout nanobot", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir("engram-nanobot-");
  });
  afterEach(() => removeDir(ws));

  it("creates memory/MEMORY.md, the target of add --long-term, long-term and main-scope only", async () => {
    const init = await engram(["init", "--layout", "nanobot", "--json", "-w", ws]);
    expect(init.stderr).toBe("");
    expect(JSON.parse(init.stdout).created).toContain("memory/MEMORY.md");
    const add = await engram([
      "add",
      "Bob prefers tea over coffee",
      "--long-term",
      "--json",
      "-w",
      ws,
    ]);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout).path).toBe("memory/MEMORY.md");
    const daily = await engram(["add", "Bob visited the lab", "--json", "-w", ws]);
    expect(JSON.parse(daily.stdout).path).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.md$/);
    const main = await engram(["search", "Bob", "--json", "--min-score", "0", "-w", ws]);
    const results = JSON.parse(main.stdout).results as Array<{ path: string; tier: string }>;
    expect(results.find((r) => r.path === "memory/MEMORY.md")?.tier).toBe("long");
    const group = await engram(["search", "Bob", "--json", "--scope", "group", "-w", ws]);
    const groupPaths = (JSON.parse(group.stdout).results as Array<{ path: string }>).map(
      (r) => r.path,
    );
    expect(groupPaths).not.toContain("memory/MEMORY.md");
    expect(groupPaths.length).toBe(1);
  });
});

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bench, removeDir, tempDir } from "./helpers.js";

/**
 * A hand-made LoCoMo file: 2 sessions, 4 retrievable questions (one per category) and one
 * category-5 question (left out). Each daily log is one small chunk, so with the default 700-char
 * snippets a result shows its whole log; with 80-char snippets it shows about one turn.
 */
const LOCOMO = [
  {
    sample_id: "conv-tiny",
    conversation: {
      speaker_a: "Caroline",
      speaker_b: "Melanie",
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        { speaker: "Caroline", dia_id: "D1:1", text: "I went to a pottery workshop yesterday!" },
        { speaker: "Melanie", dia_id: "D1:2", text: "Fun! I adopted a puppy named Biscuit." },
        { speaker: "Caroline", dia_id: "D1:3", text: "The workshop was at the community center." },
      ],
      session_2_date_time: "7:55 pm on 9 June, 2023",
      session_2: [
        { speaker: "Caroline", dia_id: "D2:1", text: "I started learning the violin last week." },
        { speaker: "Melanie", dia_id: "D2:2", text: "Biscuit chewed my violin case!" },
        {
          speaker: "Melanie",
          dia_id: "D2:3",
          text: "Look at what I made.",
          blip_caption: "a photo of a sunflower painting",
        },
      ],
    },
    qa: [
      { question: "Where was the pottery workshop?", evidence: ["D1:3"], category: 4 },
      { question: "When did Caroline start learning the violin?", evidence: ["D2:1"], category: 2 },
      {
        question: "What is the name of Melanie's puppy, and what did it chew?",
        evidence: ["D1:2", "D2:2"],
        category: 1,
      },
      // D7:7 names no turn: this question can never have all its evidence shown.
      { question: "Did Melanie paint a sunflower?", evidence: ["D2:3", "D7:7"], category: 3 },
      { question: "What did Caroline bake?", evidence: "D1:1", category: "5" },
    ],
  },
];

interface Recall {
  k: number;
  any: number;
  all: number;
  byCategory: Record<string, { questions: number; any: number; all: number }>;
  context: { meanChars: number; maxChars: number };
}

describe("engram-bench locomo", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await tempDir("engram-locomo-e2e-");
    file = join(dir, "tiny.json");
    await writeFile(file, JSON.stringify(LOCOMO));
  });
  afterEach(() => removeDir(dir));

  it("writes sessions as daily logs and scores the turns the snippets show (computed by hand)", async () => {
    const keep = join(dir, "ws");
    const out = join(dir, "results");
    const run = await bench([
      "locomo",
      "--file",
      file,
      "--k",
      "1,2",
      "--keep",
      keep,
      "--out",
      out,
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      conversations: 1,
      sessions: 2,
      turns: 6,
      questions: 4,
      byCategory: { "1": 1, "2": 1, "3": 1, "4": 1 },
      unresolvedEvidence: ["D7:7"],
    });
    const [keyword] = result.modes as Array<{ label: string; recall: Recall[] }>;
    expect(keyword?.label).toBe("keyword");
    const [at1, at2] = keyword?.recall ?? [];
    // k=1: every question's top log holds an evidence turn; all of it only for the two
    // single-turn questions (the puppy question spans both logs, the sunflower one names D7:7).
    expect(at1).toMatchObject({ k: 1, any: 1, all: 0.5 });
    expect(at1?.byCategory["1"]).toEqual({
      questions: 1,
      any: 1,
      all: 0,
      anyShare: 1,
      allShare: 0,
    });
    // k=2: both logs are shown, so the puppy question has all its evidence; D7:7 never.
    expect(at2).toMatchObject({ k: 2, any: 1, all: 0.75 });
    expect(at2?.context.maxChars).toBeLessThanOrEqual(2 * 700);

    // The workspace is what an agent would have written: one log per session day, a turn a line.
    const log1 = await readFile(join(keep, "conv-tiny", "memory", "2023-05-08.md"), "utf8");
    expect(log1).toContain(
      "## 13:56\n\n- [D1:1] Caroline: I went to a pottery workshop yesterday!\n",
    );
    const log2 = await readFile(join(keep, "conv-tiny", "memory", "2023-06-09.md"), "utf8");
    expect(log2).toContain(
      "- [D2:3] Melanie: Look at what I made. [image: a photo of a sunflower painting]",
    );

    const md = await readFile(join(out, "locomo-tiny.md"), "utf8");
    expect(md).toContain("| keyword | 1 | 1.000 | 0.500 |");
    expect(JSON.parse(await readFile(join(out, "locomo-tiny.json"), "utf8")).questions).toBe(4);
  });

  it("counts only the lines a snippet shows, not the whole chunk behind it", async () => {
    const run = await bench([
      "locomo",
      "--file",
      file,
      "--k",
      "1",
      "--no-out",
      "--json",
      "--config",
      JSON.stringify({ search: { snippetChars: 80 } }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [at1] = (JSON.parse(run.stdout).modes[0].recall ?? []) as Recall[];
    // An 80-char snippet of the first log shows the pottery turn (D1:1), not where it was (D1:3).
    expect(at1?.byCategory["4"]).toMatchObject({ questions: 1, any: 0 });
    expect(at1?.any).toBe(0.75);
    expect(at1?.context.maxChars).toBeLessThanOrEqual(80);
  });

  it("refuses a file that is not LoCoMo, naming the fix", async () => {
    await writeFile(file, JSON.stringify({ not: "a list" }));
    const run = await bench(["locomo", "--file", file, "--no-out"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("holds no list of conversations");
    expect(run.stderr).toContain("--file");
    const bad = await bench(["locomo", "--file", file, "--k", "0"]);
    expect(bad.code).toBe(2);
  });
});

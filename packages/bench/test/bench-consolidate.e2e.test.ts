import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bench, removeDir, tempDir } from "./helpers.js";

describe("engram-bench consolidate and locomo --consolidate", () => {
  let dir: string;
  afterEach(() => removeDir(dir));

  it("times a pass on a small synthetic workspace and counts a scripted model's tokens", async () => {
    dir = await tempDir("engram-bench-consolidate-");
    const run = await bench([
      "consolidate",
      "--files",
      "40",
      "--runs",
      "1",
      "--days",
      "2",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.workspace).toMatchObject({ files: 40, dailyLogs: 28, longTermFiles: 11 });
    // The generator duplicates ~10% of long-term entries: the first pass merges them.
    expect(r.pass.merged).toBeGreaterThan(0);
    expect(r.pass.planMs).toBeGreaterThan(0);
    expect(r.model).toMatchObject({ days: 2, calls: 2 });
    expect(r.model.input.median).toBeGreaterThan(0);
  }, 120_000);

  it("locomo --consolidate asks each question once, consolidates, then measures", async () => {
    dir = await tempDir("engram-bench-locomo-c-");
    const file = join(dir, "tiny.json");
    const turns = Array.from({ length: 12 }, (_, i) => ({
      speaker: i % 2 ? "Melanie" : "Caroline",
      dia_id: `D1:${i + 1}`,
      text: i === 3 ? "My puppy Biscuit loves the beach." : `small talk number ${i}`,
    }));
    await writeFile(
      file,
      JSON.stringify([
        {
          sample_id: "conv-c",
          conversation: {
            speaker_a: "Caroline",
            speaker_b: "Melanie",
            session_1_date_time: "1:56 pm on 8 May, 2023",
            session_1: turns,
          },
          qa: [
            { question: "What is the name of Melanie's puppy?", evidence: ["D1:4"], category: 4 },
            {
              question: "Where does Biscuit the puppy love to go?",
              evidence: ["D1:4"],
              category: 4,
            },
          ],
        },
      ]),
    );
    const keep = join(dir, "ws");
    const run = await bench([
      "locomo",
      "--file",
      file,
      "--k",
      "1",
      "--consolidate",
      "--keep",
      keep,
      "--no-out",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.consolidation).toMatchObject({ passes: 1, added: 1 });
    // The turn both questions found is promoted, with its dialog id, to long-term memory.
    expect(await readFile(join(keep, "conv-c", "MEMORY.md"), "utf8")).toContain(
      "- [D1:4] Melanie: My puppy Biscuit loves the beach.",
    );
    expect(r.modes[0].recall[0]).toMatchObject({ k: 1, any: 1 });
  }, 120_000);
});

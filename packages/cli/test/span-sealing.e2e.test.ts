import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { privateSpans, resolveSealKey, unsealSpansText } from "@engram/core/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";
import { filesHolding, killMidway } from "./sealing-helpers.js";

/** Issue 25: private spans sealed in place — round trips, no plaintext in `.engram/`, kill -9. */
describe("engram seal --spans / unseal --spans", () => {
  let keys: string;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    keys = await tempDir("engram-span-keys-");
    keyA = join(keys, "a.txt");
    keyB = join(keys, "b.txt");
    for (const file of [keyA, keyB]) {
      expect((await engram(["keygen", "--out", file, "--json"])).stderr).toBe("");
    }
  });
  afterAll(() => removeDir(keys));

  const withKey = (file: string, extra: NodeJS.ProcessEnv = {}) => ({
    env: { ENGRAM_KEY_FILE: file, ...extra },
  });
  const MARKER = "OBSIDIANMARK5521";
  const LOG = "memory/2026-02-01.md";
  const ORIGINAL = [
    "# 2026-02-01",
    "",
    `Pollen season starts; the gate code is <!-- engram:private -->${MARKER} 7781<!-- /engram:private --> for the garden.`,
    "Walked the dog past the greenhouse.",
    "<!-- engram:private -->",
    `Blood type AB-, allergy to ${MARKER} pollen.`,
    `用户的身份证号码是 ${MARKER}。\r`,
    "<!-- /engram:private -->",
    "Greenhouse tomatoes are ripening.",
  ].join("\n");

  it("seal --spans → search, get, context, audit without the key → unseal --spans gives the bytes back", async () => {
    const ws = await tempDir("engram-span-seal-");
    try {
      await writeFiles(ws, { [LOG]: ORIGINAL, "MEMORY.md": "# Long-term\n\n- likes tea\n" });
      const outputs: string[] = [];
      const run = async (args: string[], key?: string) => {
        const r = await engram([...args, "-w", ws], key ? withKey(key) : {});
        // A search echoes its query: that line is the caller's own text, not the file's.
        outputs.push(r.stdout.replace(/^ {2}"query": .*$/m, ""), r.stderr);
        return r;
      };
      const sealed = await run(["seal", "--spans", LOG, "--json"], keyA);
      expect(sealed.stderr).toBe("");
      expect(JSON.parse(sealed.stdout).files[0]).toMatchObject({ changed: true, spans: 2 });
      const onDisk = await readFile(join(ws, LOG), "utf8");
      expect(onDisk).not.toContain(MARKER);
      expect(onDisk).not.toContain("身份证");
      const lines = onDisk.split("\n");
      expect(lines.length).toBe(ORIGINAL.split("\n").length);
      expect(lines[0]).toBe("# 2026-02-01");
      expect(lines[2]).toMatch(
        /^Pollen season starts; the gate code is <!-- engram:private sealed -->[A-Za-z0-9+/=]+<!-- \/engram:private --> for the garden\.$/,
      );
      expect(lines[3]).toBe("Walked the dog past the greenhouse.");
      expect(lines[8]).toBe("Greenhouse tomatoes are ripening.");

      await run(["sync", "--force", "--json"]);
      // The public words of a line with a sealed span are found; the span reads [sealed] in the
      // main scope and [private] in the group scope.
      const main = await run(["search", "gate code garden", "--json", "--min-score", "0"]);
      const mainHit = JSON.parse(main.stdout).results[0];
      expect(mainHit?.path).toBe(LOG);
      expect(mainHit.snippet).toContain("[sealed]");
      const group = await run([
        "search",
        "gate code garden",
        "--json",
        "--scope",
        "group",
        "--min-score",
        "0",
      ]);
      const groupHit = JSON.parse(group.stdout).results[0];
      expect(groupHit?.snippet).toContain("the gate code is [private] for the garden.");
      expect(groupHit.snippet).not.toContain("sealed");
      // Nothing of a sealed span is searchable: not its text, not its ciphertext.
      const payload = /sealed -->([A-Za-z0-9+/=]{24})/.exec(onDisk)?.[1] ?? "";
      for (const q of [MARKER, "身份证号码", "blood type", payload]) {
        const r = await run(["search", q, "--json", "--min-score", "0"]);
        const found = JSON.parse(r.stdout).results as Array<{ snippet: string }>;
        expect(found.filter((f) => /blood|身份证|OBSIDIAN/i.test(f.snippet))).toEqual([]);
      }
      await run(["get", LOG]);
      await run(["context", "--json"]);
      const audit = await run(["audit", "--json"]);
      const findings = JSON.parse(audit.stdout).findings as Array<{
        path: string;
        kind: string;
        cite: string;
      }>;
      // No secret or PII found in the ciphertext; without the key, the spans are reported unreadable.
      expect(findings.filter((f) => f.path === LOG).map((f) => [f.kind, f.cite])).toEqual([
        ["sealed-key-missing", `${LOG}:3`],
        ["sealed-key-missing", `${LOG}:5-8`],
      ]);
      // With the key, search still shows a sealed span as [sealed] (spans are not opened).
      const keyed = await run(["search", MARKER, "--json", "--min-score", "0"], keyA);
      expect(JSON.parse(keyed.stdout).results).toEqual([]);

      expect(outputs.join("\n")).not.toContain(MARKER);
      expect(outputs.join("\n")).not.toContain("身份证");
      expect(await filesHolding(join(ws, ".engram"), MARKER)).toEqual([]);
      expect(await filesHolding(join(ws, ".engram"), payload)).toEqual([]);

      const wrong = await engram(["unseal", "--spans", LOG, "-w", ws], withKey(keyB));
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/sealed with another key/);
      expect(wrong.stderr).not.toContain("AGE-SECRET-KEY");
      const opened = await engram(["unseal", "--spans", LOG, "-w", ws], withKey(keyA));
      expect(opened.stderr).toBe("");
      expect(opened.stdout).toContain(`${LOG}: 2 private spans unsealed`);
      expect(await readFile(join(ws, LOG))).toEqual(Buffer.from(ORIGINAL));
      const back = await engram(["search", MARKER, "--json", "--min-score", "0", "-w", ws]);
      expect(JSON.parse(back.stdout).results[0]?.path).toBe(LOG);
    } finally {
      await removeDir(ws);
    }
  });

  it("memory_get in the main scope opens sealed spans with the key, shows [sealed] without it", async () => {
    const ws = await tempDir("engram-span-tools-");
    const { createMemory, createMemoryTools } = await import("@engram/core");
    const { sqliteStore } = await import("@engram/store-sqlite");
    try {
      await writeFiles(ws, { [LOG]: ORIGINAL });
      expect((await engram(["seal", "--spans", LOG, "-w", ws], withKey(keyA))).code).toBe(0);
      const slices: Record<string, { text: string; withheld?: string; startLine: number }> = {};
      for (const [name, env] of [
        ["keyed", { ENGRAM_KEY_FILE: keyA }],
        ["wrong", { ENGRAM_KEY_FILE: keyB }],
        ["blind", {}],
      ] as const) {
        const memory = await createMemory({ workspace: ws, store: sqliteStore(), env });
        try {
          const tools = createMemoryTools(memory);
          slices[name] = await tools.call("memory_get", { path: LOG, from: 3, lines: 6 });
          const group = createMemoryTools(memory, { scope: "group" });
          const shared = await group.call("memory_get", { path: LOG, from: 3, lines: 1 });
          expect(shared.text).toBe(
            "Pollen season starts; the gate code is [private] for the garden.",
          );
        } finally {
          await memory.close();
        }
      }
      // Lines keep their numbers: lines 3-8 of the sealed file are lines 3-8 of the original.
      expect(slices.keyed?.text).toBe(
        ORIGINAL.replace(/\r/g, "").split("\n").slice(2, 8).join("\n"),
      );
      expect(slices.keyed?.withheld).toBeUndefined();
      for (const name of ["wrong", "blind"]) {
        expect(slices[name]?.text).not.toContain(MARKER);
        expect(slices[name]?.text).toContain(
          "the gate code is <!-- engram:private sealed -->[sealed]<!-- /engram:private --> for",
        );
        expect(slices[name]?.withheld).toMatch(/^sealed private spans: /);
      }
    } finally {
      await removeDir(ws);
    }
  });

  it("sealing spans that were indexed in plain takes their text out of the index file", async () => {
    const ws = await tempDir("engram-span-indexed-");
    try {
      await writeFiles(ws, { [LOG]: ORIGINAL });
      expect((await engram(["sync", "-w", ws])).code).toBe(0);
      expect((await filesHolding(join(ws, ".engram"), "Blood type AB-")).length).toBeGreaterThan(0);
      const sealed = await engram(["seal", "--spans", LOG, "-w", ws], withKey(keyA));
      expect(sealed.stdout).toContain(`${LOG}: 2 private spans sealed`);
      expect(sealed.stdout).toContain("delete .engram/");
      expect(await filesHolding(join(ws, ".engram"), "Blood type AB-")).toEqual([]);
    } finally {
      await removeDir(ws);
    }
  });

  it("refuses a span never closed and leaves the file as it was", async () => {
    const ws = await tempDir("engram-span-unclosed-");
    try {
      const text = "# 2026-02-03\n\n<!-- engram:private -->\nno end in sight\n";
      await writeFiles(ws, { "memory/2026-02-03.md": text });
      const refused = await engram(
        ["seal", "--spans", "memory/2026-02-03.md", "-w", ws],
        withKey(keyA),
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/memory\/2026-02-03\.md:3: a private span .* is never closed/);
      expect(await readFile(join(ws, "memory/2026-02-03.md"), "utf8")).toBe(text);
    } finally {
      await removeDir(ws);
    }
  });

  it("privacy.sealSpans seals the spans of an append when a key is set", async () => {
    const ws = await tempDir("engram-span-auto-");
    try {
      await writeFiles(ws, {
        "engram.config.json": JSON.stringify({ privacy: { sealSpans: true } }),
        "MEMORY.md": "# Long-term\n\n- likes tea\n",
      });
      const fact = `door code <!-- engram:private -->${MARKER}<!-- /engram:private --> (back door)`;
      const add = await engram(["add", fact, "--long-term", "-w", ws], withKey(keyA));
      expect(add.stderr).toBe("");
      const text = await readFile(join(ws, "MEMORY.md"), "utf8");
      expect(text).not.toContain(MARKER);
      expect(text).toContain("(back door)");
      expect(privateSpans(text).map((s) => s.sealed)).toEqual([true]);
      const key = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyA });
      if (!key) throw new Error("the key file did not load");
      expect((await unsealSpansText(text, key, "MEMORY.md")).text).toContain(fact);
      // Without a key the append stays plain (nothing to seal with).
      const plain = await engram([
        "add",
        "pin <!-- engram:private -->1234<!-- /engram:private -->",
        "--long-term",
        "-w",
        ws,
      ]);
      expect(plain.code).toBe(0);
      expect(await readFile(join(ws, "MEMORY.md"), "utf8")).toContain("1234");
    } finally {
      await removeDir(ws);
    }
  });

  describe("kill -9 leaves every file's spans sealed or plain, whole", () => {
    const FILES = 40;
    const original = (i: number) =>
      [
        `# 2026-01-${String((i % 28) + 1).padStart(2, "0")}`,
        "",
        `public line ${i} <!-- engram:private -->${"机密 secret ".repeat(30 + i)}<!-- /engram:private --> end`,
        "<!-- engram:private -->",
        `${"second span line 私密 ".repeat(20)}`,
        "<!-- /engram:private -->",
        "",
      ].join("\n");
    const pathOf = (i: number) => `memory/notes/n${String(i).padStart(2, "0")}.md`;

    /** Every file is the original bytes, or sealed spans that open (with A or B) to them. */
    async function check(ws: string): Promise<{ plain: number; a: number; b: number }> {
      const a = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyA });
      const b = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyB });
      if (!a || !b) throw new Error("the key files did not load");
      const counts = { plain: 0, a: 0, b: 0 };
      for (let i = 0; i < FILES; i++) {
        const text = await readFile(join(ws, pathOf(i)), "utf8");
        const sealed = privateSpans(text).map((s) => s.sealed === true);
        if (!sealed.includes(true)) {
          expect(text).toBe(original(i));
          counts.plain++;
          continue;
        }
        expect(sealed).toEqual([true, true]); // a file is sealed whole, never one span of two
        const onA = await unsealSpansText(text, a, pathOf(i)).catch(() => null);
        const opened = onA ?? (await unsealSpansText(text, b, pathOf(i)));
        expect(opened.text).toBe(original(i));
        if (onA) counts.a++;
        else counts.b++;
      }
      return counts;
    }

    /** How many files have sealed spans (cheap, for polling). */
    async function sealedCount(ws: string): Promise<number> {
      let n = 0;
      for (let i = 0; i < FILES; i++) {
        if ((await readFile(join(ws, pathOf(i)), "utf8")).includes("private sealed")) n++;
      }
      return n;
    }

    it("during seal --spans, rekey and unseal --spans; the next run finishes the job", async () => {
      const ws = await tempDir("engram-span-kill-");
      try {
        const files: Record<string, string> = {};
        for (let i = 0; i < FILES; i++) files[pathOf(i)] = original(i);
        await writeFiles(ws, files);
        const paths = Array.from({ length: FILES }, (_, i) => pathOf(i));
        const kills: string[] = [];

        for (const moved of [1, 5]) {
          const at = (await sealedCount(ws)) + moved;
          const killed = await killMidway(
            ["seal", "--spans", ...paths, "-w", ws],
            { ENGRAM_KEY_FILE: keyA },
            async () => (await sealedCount(ws)) >= at,
          );
          const now = await check(ws);
          kills.push(`seal ${killed ? "killed" : "finished"}: ${JSON.stringify(now)}`);
          expect(now.plain + now.a).toBe(FILES);
        }
        const done = await engram(["seal", "--spans", ...paths, "-w", ws], withKey(keyA));
        expect(done.stderr).toBe("");
        expect((await check(ws)).a).toBe(FILES);

        // Rotation A → B moves the spans; killed once some files moved, then resumed.
        const rekeyEnv = { ENGRAM_KEY_FILE: keyA, ENGRAM_NEW_KEY_FILE: keyB };
        const onA = await Promise.all(paths.map((p) => readFile(join(ws, p), "utf8")));
        const moved = async () => {
          let n = 0;
          for (let i = 0; i < FILES; i++) {
            if ((await readFile(join(ws, pathOf(i)), "utf8")) !== onA[i]) n++;
          }
          return n;
        };
        const killed = await killMidway(
          ["rekey", "-w", ws],
          rekeyEnv,
          async () => (await moved()) >= 3,
        );
        const mid = await check(ws);
        kills.push(`rekey ${killed ? "killed" : "finished"}: ${JSON.stringify(mid)}`);
        expect(mid.a + mid.b).toBe(FILES);
        const resumed = await engram(["rekey", "--json", "-w", ws], { env: rekeyEnv });
        expect(resumed.stderr).toBe("");
        if (mid.b < FILES) expect(JSON.parse(resumed.stdout).resumed).toBe(true);
        expect((await check(ws)).b).toBe(FILES);
        await expect(stat(join(ws, ".engram/sealing/rotation.json"))).rejects.toThrow();

        const at = FILES - 3;
        const killedUnseal = await killMidway(
          ["unseal", "--spans", ...paths, "-w", ws],
          { ENGRAM_KEY_FILE: keyB },
          async () => (await sealedCount(ws)) <= at,
        );
        const half = await check(ws);
        kills.push(`unseal ${killedUnseal ? "killed" : "finished"}: ${JSON.stringify(half)}`);
        expect(half.plain + half.b).toBe(FILES);
        expect((await engram(["unseal", "--spans", ...paths, "-w", ws], withKey(keyB))).code).toBe(
          0,
        );
        expect((await check(ws)).plain).toBe(FILES);
        console.info("kill -9 mid-run (spans):", kills);
      } finally {
        await removeDir(ws);
      }
    }, 240_000);
  });
});

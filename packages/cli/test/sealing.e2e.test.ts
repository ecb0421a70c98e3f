import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { openSealedText, parseSealed, resolveSealKey } from "@engram/core/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";
import { filesHolding, killMidway } from "./sealing-helpers.js";

/** Issue 25: sealing round trips, crash safety under kill -9, and no plaintext in `.engram/`. */
describe("engram seal / unseal / rekey", () => {
  let keys: string;
  let keyA: string;
  let keyB: string;
  beforeAll(async () => {
    keys = await tempDir("engram-keys-");
    keyA = join(keys, "a.txt");
    keyB = join(keys, "b.txt");
    for (const file of [keyA, keyB]) {
      const run = await engram(["keygen", "--out", file, "--json"]);
      expect(run.stderr).toBe("");
    }
  });
  afterAll(() => removeDir(keys));

  const withKey = (file: string, extra: NodeJS.ProcessEnv = {}) => ({
    env: { ENGRAM_KEY_FILE: file, ...extra },
  });
  const MARKER = "QUETZALMARKER9931";
  const SECRET = `---\nsensitive: true\n---\n# Health\n\nBlood type AB-, allergy to ${MARKER} pollen.\n用户的身份证号码是 ${MARKER}。\r\nno final newline`;

  it("seal → search with and without the key → unseal gives the original bytes", async () => {
    const ws = await tempDir("engram-seal-");
    try {
      await writeFiles(ws, {
        "memory/long-term/health.md": SECRET,
        "memory/2026-02-01.md": "# 2026-02-01\n\nAsked about pollen season.\n",
      });
      const sealed = await engram(
        ["seal", "memory/long-term/health.md", "--json", "-w", ws],
        withKey(keyA),
      );
      expect(sealed.stderr).toBe("");
      expect(JSON.parse(sealed.stdout).files[0]).toMatchObject({ changed: true });
      const placeholder = await readFile(join(ws, "memory/long-term/health.md"), "utf8");
      expect(placeholder).toMatch(/^---\nengram-sealed: age-v1\nsensitive: true\n/);
      expect(placeholder).toContain("# Sealed memory");
      expect(placeholder).not.toContain(MARKER);

      // The sync's report counts the sealed file: a new process's search lists sealed files only then.
      const synced = await engram(["sync", "--json", "-w", ws]);
      expect(JSON.parse(synced.stdout)).toMatchObject({ sealedFiles: 1 });

      // Without the key: nothing found, and search says a sealed file was skipped.
      const blind = await engram(["search", MARKER, "--json", "--min-score", "0", "-w", ws]);
      expect(blind.code).toBe(0);
      const blindJson = JSON.parse(blind.stdout);
      expect(blindJson.results).toEqual([]);
      expect(blindJson.sealed).toMatchObject({ files: 1, searched: 0, skipped: 1 });
      const text = await engram(["search", "pollen", "-w", ws]);
      expect(text.stdout).toContain("1 of 1 sealed files skipped");

      // With the key: found in the main scope, never in the group scope.
      const seen = await engram(
        ["search", MARKER, "--json", "--min-score", "0", "-w", ws],
        withKey(keyA),
      );
      const seenJson = JSON.parse(seen.stdout);
      expect(seenJson.results.map((r: { path: string }) => r.path)).toEqual([
        "memory/long-term/health.md",
      ]);
      expect(seenJson.sealed).toMatchObject({ searched: 1, skipped: 0 });
      const chinese = await engram(["search", "身份证号码", "--json", "-w", ws], withKey(keyA));
      expect(JSON.parse(chinese.stdout).results[0]?.path).toBe("memory/long-term/health.md");
      const group = await engram(
        ["search", MARKER, "--json", "--scope", "group", "--min-score", "0", "-w", ws],
        withKey(keyA),
      );
      expect(JSON.parse(group.stdout).results).toEqual([]);
      expect(JSON.parse(group.stdout).sealed).toBeUndefined();

      // The wrong key opens nothing and says so.
      const wrong = await engram(["unseal", "memory/long-term/health.md", "-w", ws], withKey(keyB));
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/sealed with another key/);
      expect(wrong.stderr).not.toContain("AGE-SECRET-KEY");

      const unsealed = await engram(
        ["unseal", "memory/long-term/health.md", "-w", ws],
        withKey(keyA),
      );
      expect(unsealed.stderr).toBe("");
      expect(await readFile(join(ws, "memory/long-term/health.md"))).toEqual(Buffer.from(SECRET));
      const back = await engram(["search", MARKER, "--json", "--min-score", "0", "-w", ws]);
      expect(JSON.parse(back.stdout).results.length).toBe(1);
      expect(JSON.parse(back.stdout).sealed).toBeUndefined();
      const plain = await engram(["sync", "--json", "-w", ws]);
      expect(JSON.parse(plain.stdout)).toMatchObject({ sealedFiles: 0 });
    } finally {
      await removeDir(ws);
    }
  });

  it("leaves no sealed plaintext in .engram/ or any output without the key", async () => {
    const ws = await tempDir("engram-seal-scan-");
    try {
      await writeFiles(ws, {
        "memory/long-term/health.md": SECRET,
        "memory/2026-02-01.md": "# 2026-02-01\n\npollen season notes\n",
      });
      const outputs: string[] = [];
      const run = async (args: string[], key?: string) => {
        const r = await engram([...args, "-w", ws], key ? withKey(key) : {});
        // A search echoes its query: that line is the caller's own text, not the file's.
        outputs.push(r.stdout.replace(/^ {2}"query": .*$/m, ""), r.stderr);
        return r;
      };
      await run(["seal", "memory/long-term/health.md"], keyA);
      await run(["sync", "--json"]);
      await run(["sync", "--force", "--json"]);
      await run(["search", MARKER, "--json"]);
      await run(["search", "pollen"]);
      await run(["status", "--json"]);
      await run(["get", "memory/long-term/health.md"]);
      await run(["add", "more notes", "--json"]);
      // Searching with the key opens it in that process's memory only.
      const found = await run(["search", MARKER, "--json", "--min-score", "0"], keyA);
      expect(JSON.parse(found.stdout).results.length).toBe(1);
      const withoutKey = outputs.slice(2, 16).join("\n");
      expect(withoutKey).not.toContain(MARKER);
      expect(await filesHolding(join(ws, ".engram"), MARKER)).toEqual([]);
    } finally {
      await removeDir(ws);
    }
  });

  it("sealing a file that was indexed in plain removes its text from the index file", async () => {
    const ws = await tempDir("engram-seal-indexed-");
    try {
      await writeFiles(ws, { "memory/long-term/health.md": SECRET });
      expect((await engram(["sync", "-w", ws])).code).toBe(0);
      expect((await filesHolding(join(ws, ".engram"), MARKER)).length).toBeGreaterThan(0);
      const sealed = await engram(["seal", "memory/long-term/health.md", "-w", ws], withKey(keyA));
      expect(sealed.stdout).toContain("delete .engram/");
      // The chunk text is gone (SQLite overwrites freed pages); words may stay in the vocabulary,
      // as the command says (the README documents it).
      expect(await filesHolding(join(ws, ".engram"), "Blood type AB-")).toEqual([]);
    } finally {
      await removeDir(ws);
    }
  });

  it("refuses a key file inside the workspace and a plaintext append to a sealed file", async () => {
    const ws = await tempDir("engram-seal-refuse-");
    try {
      await writeFiles(ws, { "MEMORY.md": "# Long-term Memory\n\nfact\n", "memory/.keep": "" });
      const inside = join(ws, "memory", "key.txt");
      expect((await engram(["keygen", "--out", inside])).code).toBe(0);
      const refused = await engram(["seal", "MEMORY.md", "-w", ws], withKey(inside));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/inside the workspace/);
      expect((await engram(["seal", "MEMORY.md", "-w", ws], withKey(keyA))).code).toBe(0);
      const blind = await engram(["add", "plain fact", "--long-term", "-w", ws]);
      expect(blind.code).toBe(1);
      expect(blind.stderr).toMatch(/MEMORY\.md is sealed/);
      // With the key the append goes through the seal: opened, appended, sealed again.
      const ok = await engram(["add", "a new fact", "--long-term", "-w", ws], withKey(keyA));
      expect(ok.stderr).toBe("");
      const text = await readFile(join(ws, "MEMORY.md"), "utf8");
      expect(parseSealed(text)).not.toBeNull();
      const key = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyA });
      if (!key) throw new Error("the key file did not load");
      const plain = await openSealedText(text, key, "MEMORY.md");
      expect(plain).toContain("fact\n");
      expect(plain).toContain("a new fact");
    } finally {
      await removeDir(ws);
    }
  });

  it("seals new writes to a sensitive file automatically when a key is configured", async () => {
    const ws = await tempDir("engram-autoseal-");
    try {
      await writeFiles(ws, {
        "memory/long-term/profile-private.md": "---\nsensitive: true\n---\n# Private profile\n",
      });
      const add = await engram(
        ["add", `Passport ${MARKER}`, "--long-term", "--json", "-w", ws],
        withKey(keyA, { ENGRAM_WORKSPACE: "" }),
      );
      expect(add.code).toBe(0);
      // --long-term writes MEMORY.md (not sensitive): stays plain.
      expect(await readFile(join(ws, "MEMORY.md"), "utf8")).toContain(MARKER);
      const tools = await import("@engram/core");
      const { sqliteStore } = await import("@engram/store-sqlite");
      const memory = await tools.createMemory({
        workspace: ws,
        store: sqliteStore(),
        env: { ENGRAM_KEY_FILE: keyA },
      });
      try {
        await memory.appendLongTerm(`Blood type ${MARKER}`, {
          file: "memory/long-term/profile-private.md",
        });
      } finally {
        await memory.close();
      }
      const text = await readFile(join(ws, "memory/long-term/profile-private.md"), "utf8");
      expect(parseSealed(text)).not.toBeNull();
      expect(text).not.toContain(MARKER);
    } finally {
      await removeDir(ws);
    }
  });

  describe("kill -9 leaves every file sealed or plain, whole", () => {
    const FILES = 40;
    const original = (i: number) =>
      `---\nsensitive: true\n---\n# Note ${i}\n\n${"secret line 机密 ".repeat(40 + i)}\n`;
    const pathOf = (i: number) => `memory/long-term/n${String(i).padStart(2, "0")}.md`;

    async function workspace(): Promise<string> {
      const ws = await tempDir("engram-seal-kill-");
      const files: Record<string, string> = {};
      for (let i = 0; i < FILES; i++) files[pathOf(i)] = original(i);
      await writeFiles(ws, files);
      return ws;
    }

    /** Every file is the original bytes, or a placeholder that opens (with A or B) to them. */
    async function check(ws: string): Promise<{ plain: number; a: number; b: number }> {
      const a = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyA });
      const b = await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyB });
      const counts = { plain: 0, a: 0, b: 0 };
      for (let i = 0; i < FILES; i++) {
        const text = await readFile(join(ws, pathOf(i)), "utf8");
        const sealed = parseSealed(text);
        if (!sealed) {
          expect(text).toBe(original(i));
          counts.plain++;
          continue;
        }
        const to = sealed.recipients[0];
        const key = to === a?.recipient ? a : b;
        expect([a?.recipient, b?.recipient]).toContain(to);
        if (!key) throw new Error("the key files did not load");
        expect(await openSealedText(text, key, pathOf(i))).toBe(original(i));
        if (key === a) counts.a++;
        else counts.b++;
      }
      return counts;
    }

    /** How many files are plain, on A, on B: read from the placeholders alone (cheap, for polling). */
    async function quick(ws: string): Promise<{ plain: number; a: number; b: number }> {
      const a = (await resolveSealKey(ws, { ENGRAM_KEY_FILE: keyA }))?.recipient;
      const counts = { plain: 0, a: 0, b: 0 };
      for (let i = 0; i < FILES; i++) {
        const sealed = parseSealed(await readFile(join(ws, pathOf(i)), "utf8"));
        if (!sealed) counts.plain++;
        else if (sealed.recipients[0] === a) counts.a++;
        else counts.b++;
      }
      return counts;
    }

    it("during seal, unseal and key rotation; the next run finishes the job", async () => {
      const ws = await workspace();
      try {
        const count = async () => check(ws);
        const poll = async () => quick(ws);
        const stats = { seal: 0, unseal: 0, rekey: 0 };
        const paths = Array.from({ length: FILES }, (_, i) => pathOf(i));

        // Each run is killed once `moved` more files changed state than when it started (counted
        // from the placeholders alone, so polling is cheap), then the invariants are checked.
        const states: string[] = [];
        const killAfter = async (
          args: string[],
          env: NodeJS.ProcessEnv,
          field: "plain" | "a" | "b",
          moved: number,
        ) => {
          const at = (await poll())[field] + moved;
          const killed = await killMidway(
            [...args, "-w", ws],
            env,
            async () => (await poll())[field] >= at,
          );
          const now = await count();
          states.push(`${args[0]} ${killed ? "killed" : "finished"}: ${JSON.stringify(now)}`);
          return { killed, now };
        };

        // Seal, killed twice, then finished.
        for (const moved of [1, 5]) {
          const { killed, now } = await killAfter(
            ["seal", ...paths],
            { ENGRAM_KEY_FILE: keyA },
            "a",
            moved,
          );
          if (killed) stats.seal++;
          expect(now.a + now.plain).toBe(FILES);
        }
        expect((await engram(["seal", ...paths, "-w", ws], withKey(keyA))).code).toBe(0);
        expect((await count()).a).toBe(FILES);

        // Rotation A → B, killed, the resumed run killed again; every file on A or B, whole.
        const rekeyEnv = { ENGRAM_KEY_FILE: keyA, ENGRAM_NEW_KEY_FILE: keyB };
        let mid = await count();
        for (const moved of [1, 5]) {
          const { killed, now } = await killAfter(["rekey"], rekeyEnv, "b", moved);
          if (killed) stats.rekey++;
          mid = now;
          expect(mid.a + mid.b).toBe(FILES);
        }
        const resumed = await engram(["rekey", "--json", "-w", ws], { env: rekeyEnv });
        expect(resumed.stderr).toBe("");
        if (mid.b < FILES) expect(JSON.parse(resumed.stdout).resumed).toBe(true);
        expect((await count()).b).toBe(FILES);
        await expect(stat(join(ws, ".engram/sealing/rotation.json"))).rejects.toThrow();

        // Unseal with B, killed twice, then finished.
        for (const moved of [1, 5]) {
          const { killed, now } = await killAfter(
            ["unseal", ...paths],
            { ENGRAM_KEY_FILE: keyB },
            "plain",
            moved,
          );
          if (killed) stats.unseal++;
          expect(now.plain + now.b).toBe(FILES);
        }
        expect((await engram(["unseal", ...paths, "-w", ws], withKey(keyB))).code).toBe(0);
        expect((await count()).plain).toBe(FILES);
        // The kills landed mid-run (the invariants above were checked on half-done work).
        console.info("kill -9 mid-run:", stats, states);
      } finally {
        await removeDir(ws);
      }
    }, 240_000);
  });
});

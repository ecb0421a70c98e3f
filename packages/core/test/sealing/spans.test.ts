import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditWorkspace,
  createAnalyzer,
  createTierResolver,
  DEFAULT_TIER_MAP,
  generateSealKey,
  hasSealedSpans,
  maskSealedSpans,
  privateSpans,
  REDACTED,
  redactPrivate,
  resolveConfig,
  resolveSealKey,
  rotateSealKey,
  SEALED_MARK,
  type SealKey,
  scopedChunkRecords,
  sealFile,
  sealSpansFile,
  sealSpansText,
  unsealFile,
  unsealSpansFile,
  unsealSpansText,
} from "../../src/internal/index.js";

const MARK = "ZIRCONMARK4417";

/** Inline spans, a multi-line span with a heading, Chinese text, CRLF lines and no final newline. */
const ORIGINAL = [
  "# 2026-03-01",
  "",
  `My PIN is <!-- engram:private -->${MARK} 4242<!-- /engram:private --> and the door is blue.`,
  "Public line before the block.",
  "<!-- engram:private -->",
  "## Health",
  `血型 AB，对花粉过敏（${MARK}）。\r`,
  "<!-- /engram:private -->",
  `用户的身份证号码是 <!--engram:private-->${MARK} 110105<!-- /ENGRAM:private -->，请保管。`,
  "Last public line.",
].join("\n");

async function keyOf(text: string): Promise<SealKey> {
  const key = await resolveSealKey(tmpdir(), { ENGRAM_KEY: text.split("\n").at(-2) ?? "" });
  if (!key) throw new Error("no key");
  return key;
}

describe("private spans sealed in place", () => {
  let keyA: SealKey;
  let keyB: SealKey;
  let ws: string;
  beforeAll(async () => {
    keyA = await keyOf((await generateSealKey()).fileText);
    keyB = await keyOf((await generateSealKey()).fileText);
    ws = await mkdtemp(join(tmpdir(), "engram-span-seal-"));
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  async function put(rel: string, content: string | Buffer): Promise<string> {
    const abs = join(ws, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
    return abs;
  }

  it("seals each span on its own lines and opens to the exact text (EN + ZH, inline, multi-line)", async () => {
    const sealed = await sealSpansText(ORIGINAL, keyA, "t.md");
    expect(sealed.changed).toBe(3);
    expect(sealed.text).not.toContain(MARK);
    expect(sealed.text).not.toContain("血型");
    // Every line keeps its number; the public text around the spans stays as it was.
    expect(sealed.text.split("\n").length).toBe(ORIGINAL.split("\n").length);
    expect(redactPrivate(sealed.text)).toBe(redactPrivate(ORIGINAL));
    const lines = sealed.text.split("\n");
    expect(lines[2]).toMatch(
      /^My PIN is <!-- engram:private sealed -->[A-Za-z0-9+/=]+<!-- \/engram:private --> and the door is blue\.$/,
    );
    expect(lines[8]).toMatch(/^用户的身份证号码是 <!-- engram:private sealed -->.*，请保管。$/);
    // The CR inside the multi-line span is kept with its line break.
    expect(lines.slice(5, 7)).toEqual(["", "\r"]);
    expect(privateSpans(sealed.text).map((s) => s.sealed)).toEqual([true, true, true]);
    expect(hasSealedSpans(sealed.text)).toBe(true);
    expect(hasSealedSpans(ORIGINAL)).toBe(false);

    // Sealing again changes nothing; opening gives the original back, byte for byte.
    expect((await sealSpansText(sealed.text, keyA, "t.md")).changed).toBe(0);
    const opened = await unsealSpansText(sealed.text, keyA, "t.md");
    expect(opened).toMatchObject({ changed: 3, text: ORIGINAL });
  });

  it("the payload is a standard age file (base64 of the binary age format)", async () => {
    const { text } = await sealSpansText(
      "a <!-- engram:private -->x<!-- /engram:private --> b",
      keyA,
      "t.md",
    );
    const payload = /sealed -->([^<]+)</.exec(text)?.[1] ?? "";
    expect(Buffer.from(payload, "base64").toString("latin1")).toMatch(
      /^age-encryption\.org\/v1\n-> X25519 /,
    );
  });

  it("masks ciphertext for the index: a sealed span stays private and reads [sealed] / [private]", async () => {
    const { text } = await sealSpansText(ORIGINAL, keyA, "memory/2026-03-01.md");
    const masked = maskSealedSpans(text);
    expect(masked).not.toMatch(/[A-Za-z0-9+/]{40}/);
    expect(masked.split("\n")[2]).toBe(
      `My PIN is <!-- engram:private sealed -->${SEALED_MARK}<!-- /engram:private --> and the door is blue.`,
    );
    expect(masked.split("\n").length).toBe(ORIGINAL.split("\n").length);
    const config = resolveConfig({});
    const { chunks } = scopedChunkRecords(
      { path: "memory/2026-03-01.md", source: "memory", tier: "short" },
      masked,
      createAnalyzer(),
      config.chunking,
      [],
    );
    const all = chunks.map((c) => `${c.text}\n${c.terms.join(" ")}`).join("\n");
    expect(all).not.toContain(MARK);
    expect(all).not.toMatch(/[A-Za-z0-9+/]{40}/); // no ciphertext, as text or as terms
    const group = chunks.filter((c) => c.source === "memory#redacted").map((c) => c.text);
    expect(group.join("\n")).toContain(`My PIN is ${REDACTED} and the door is blue.`);
    expect(group.join("\n")).not.toContain(SEALED_MARK);
    const main = chunks.filter((c) => c.source === "memory#private").map((c) => c.text);
    expect(main.join("\n")).toContain(SEALED_MARK);
  });

  it("refuses a span never closed, and a span marked sealed that holds plain text", async () => {
    const unclosed = "# Notes\n\n<!-- engram:private -->\nsecret to the end\n";
    await expect(sealSpansText(unclosed, keyA, "n.md")).rejects.toMatchObject({
      code: "FILE_INVALID",
      message: expect.stringContaining("n.md:3: a private span"),
    });
    const forged = "x <!-- engram:private sealed -->plain secret<!-- /engram:private -->\n";
    await expect(sealSpansText(forged, keyA, "f.md")).rejects.toMatchObject({
      code: "FILE_INVALID",
    });
    // Still private everywhere: the forged text never reaches the index.
    expect(maskSealedSpans(forged)).not.toContain("plain secret");
    const abs = await put("memory/unclosed.md", unclosed);
    await expect(sealSpansFile(ws, "memory/unclosed.md", keyA)).rejects.toMatchObject({
      code: "FILE_INVALID",
    });
    expect(await readFile(abs, "utf8")).toBe(unclosed);
  });

  it("a wrong key opens nothing and changes nothing; the message names no key", async () => {
    const abs = await put("memory/2026-03-02.md", ORIGINAL);
    await sealSpansFile(ws, "memory/2026-03-02.md", keyA);
    const sealed = await readFile(abs);
    const error = await unsealSpansFile(ws, "memory/2026-03-02.md", keyB).catch((e) => e);
    expect(error).toMatchObject({ code: "SEAL_KEY_WRONG" });
    expect(String(error.message)).not.toContain("AGE-SECRET-KEY");
    expect(String(error.message)).toContain("memory/2026-03-02.md:3");
    expect(await readFile(abs)).toEqual(sealed);
  });

  it("file round trip keeps a BOM and the exact bytes; files sealed whole are left alone", async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ORIGINAL)]);
    const abs = await put("memory/bom.md", bytes);
    const sealed = await sealSpansFile(ws, "memory/bom.md", keyA);
    expect(sealed).toMatchObject({ path: "memory/bom.md", changed: true, spans: 3 });
    const onDisk = await readFile(abs);
    expect(onDisk.subarray(0, 3)).toEqual(bytes.subarray(0, 3));
    expect(onDisk.includes(MARK)).toBe(false);
    expect(await sealSpansFile(ws, "memory/bom.md", keyA)).toMatchObject({ changed: false });
    expect(await unsealSpansFile(ws, "memory/bom.md", keyA)).toMatchObject({ changed: true });
    expect(await readFile(abs)).toEqual(bytes);

    // Spans first, then the whole file: the spans are inside that seal.
    await sealSpansFile(ws, "memory/bom.md", keyA);
    await sealFile(ws, "memory/bom.md", keyA);
    expect(await sealSpansFile(ws, "memory/bom.md", keyA)).toMatchObject({
      changed: false,
      wholeFileSealed: true,
    });
    await unsealFile(ws, "memory/bom.md", keyA);
    await unsealSpansFile(ws, "memory/bom.md", keyA);
    expect(await readFile(abs)).toEqual(bytes);
  });

  it("key rotation re-seals sealed spans (also inside a file sealed whole), journaled", async () => {
    const rws = await mkdtemp(join(tmpdir(), "engram-span-rekey-"));
    try {
      const files = {
        "memory/2026-04-01.md": `\uFEFF${ORIGINAL}`, // a BOM, kept through the rotation
        "memory/2026-04-02.md": `# 2026-04-02\n\nno spans here ${MARK}\n`,
        "MEMORY.md": `# Long-term\n\n- key <!-- engram:private -->${MARK}<!-- /engram:private -->\n`,
      };
      for (const [rel, text] of Object.entries(files)) {
        await mkdir(dirname(join(rws, rel)), { recursive: true });
        await writeFile(join(rws, rel), text);
      }
      await sealSpansFile(rws, "memory/2026-04-01.md", keyA);
      await sealSpansFile(rws, "MEMORY.md", keyA);
      await sealFile(rws, "MEMORY.md", keyA);
      const outcome = await rotateSealKey(rws, keyA, keyB);
      expect(outcome.rotated.sort()).toEqual(["MEMORY.md", "memory/2026-04-01.md"]);
      // The old key opens nothing any more; the new one opens everything to the original bytes.
      await expect(unsealSpansFile(rws, "memory/2026-04-01.md", keyA)).rejects.toMatchObject({
        code: "SEAL_KEY_WRONG",
      });
      await unsealSpansFile(rws, "memory/2026-04-01.md", keyB);
      await unsealFile(rws, "MEMORY.md", keyB);
      await expect(unsealSpansFile(rws, "MEMORY.md", keyA)).rejects.toMatchObject({
        code: "SEAL_KEY_WRONG",
      });
      await unsealSpansFile(rws, "MEMORY.md", keyB);
      for (const [rel, text] of Object.entries(files)) {
        expect(await readFile(join(rws, rel), "utf8")).toBe(text);
      }
      // A second rotation to the same key finds nothing left to move.
      await sealSpansFile(rws, "memory/2026-04-01.md", keyB);
      expect(await rotateSealKey(rws, keyA, keyB)).toMatchObject({
        rotated: [],
        already: ["memory/2026-04-01.md"],
      });
    } finally {
      await rm(rws, { recursive: true, force: true });
    }
  });

  it("the audit never flags sealed spans' ciphertext, and reports spans the key cannot open", async () => {
    const aws = await mkdtemp(join(tmpdir(), "engram-span-audit-"));
    try {
      const text = [
        "# 2026-03-05",
        "",
        "<!-- engram:private -->",
        "Database password: Hunter2-Blue!",
        "AWS access key AKIAZ7Q2M4N6P8R0T2V4 in the old notebook.",
        "<!-- /engram:private -->",
        "Her SSN is 078-05-1120 per the form.",
        "",
      ].join("\n");
      await mkdir(join(aws, "memory"), { recursive: true });
      await writeFile(join(aws, "memory/2026-03-05.md"), text);
      await sealSpansFile(aws, "memory/2026-03-05.md", keyA);
      const config = resolveConfig({});
      for (const key of [null, keyA]) {
        const report = await auditWorkspace(
          {
            workspace: aws,
            config,
            analyzer: createAnalyzer(config.analyzer),
            tierOf: createTierResolver(DEFAULT_TIER_MAP),
            key,
          },
          { now: new Date("2026-03-10T00:00:00Z") },
        );
        // Only the unmarked SSN on line 7 (and, without the key, the span it cannot read): the
        // ciphertext on line 3 is no token, key or PII.
        expect(report.findings.map((f) => [f.kind, f.cite])).toEqual([
          ...(key ? [] : [["sealed-key-missing", "memory/2026-03-05.md:3-6"]]),
          ["pii", "memory/2026-03-05.md:7"],
        ]);
      }
      const other = await auditWorkspace(
        {
          workspace: aws,
          config,
          analyzer: createAnalyzer(config.analyzer),
          tierOf: createTierResolver(DEFAULT_TIER_MAP),
          key: keyB,
        },
        { now: new Date("2026-03-10T00:00:00Z") },
      );
      expect(other.findings[0]).toMatchObject({
        kind: "sealed-key-missing",
        action: "provide-key",
        message: expect.stringContaining("another key"),
      });
    } finally {
      await rm(aws, { recursive: true, force: true });
    }
  });
});

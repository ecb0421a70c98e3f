import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuditFinding,
  auditWorkspace,
  chineseIdValid,
  createAnalyzer,
  createTierResolver,
  DEFAULT_TIER_MAP,
  generateSealKey,
  luhnValid,
  resolveConfig,
  resolveSealKey,
  sealFile,
} from "../../src/internal/index.js";

/** A valid Chinese resident ID for a birth date (check character computed, GB 11643). */
function chineseId(prefix17: string): string {
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...prefix17].reduce((s, d, i) => s + Number(d) * (w[i] as number), 0);
  return prefix17 + ("10X98765432"[sum % 11] as string);
}
const ID_OK = chineseId("11010519900307123");
const ID_OK2 = chineseId("44030119851224456");
const ID_BAD = `${ID_OK.slice(0, 17)}${ID_OK[17] === "1" ? "2" : "1"}`; // wrong check character

/**
 * The fixture: each planted item is on its own line, `expected` lists (path, line, kind) of what
 * must be found; every other line is a decoy (dates, versions, order numbers, an ID with a wrong
 * checksum, a non-Luhn 16-digit number, marked-private and sensitive content).
 */
const FILES: Record<string, string> = {
  "memory/2026-03-01.md": [
    "# 2026-03-01", // 1
    "", // 2
    "Deployed v2.14.3 on 2026-03-01 at 14:30, build 20260301143000.", // 3 decoy
    "The staging OpenAI key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z for tests.", // 4 secret
    `GitHub token ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"} was pasted by mistake.`, // 5 secret
    "Database password: Hunter2-Blue!", // 6 secret
    "Order number 4111 1111 1111 1112 shipped (not a card).", // 7 decoy (Luhn fails)
    "Paid with card 4111 1111 1111 1111 at the hotel.", // 8 pii
    "Alice's e-mail is alice.w@example.org, ask before sharing.", // 9 pii
    "Call Bob at (415) 555-0172 after lunch.", // 10 pii
    "Ship to 742 Evergreen Terrace Apt 3 — wait, no: 1600 Pennsylvania Avenue.", // 11 pii
    "Ticket ENG-4521 closed; see PR #8812.", // 12 decoy
    "<!-- engram:private -->my PIN is 9931<!-- /engram:private --> and the door is blue.", // 13 marked
    "Her SSN is 078-05-1120 per the form.", // 14 pii
    "AWS access key AKIAZ7Q2M4N6P8R0T2V4 in the old notebook.", // 15 secret
    "",
  ].join("\n"),
  "memory/2026-03-02.md": [
    "# 2026-03-02", // 1
    "", // 2
    `用户的身份证号码是 ${ID_OK}，请妥善保管。`, // 3 pii
    "张伟的手机号：138 1234 5678，下班后联系。", // 4 pii
    "快递地址：北京市朝阳区建国路88号SOHO现代城2单元", // 5 pii
    `错误的号码 ${ID_BAD} 不是身份证。`, // 6 decoy (checksum fails)
    "服务器登录密码是 Qw!7zX#9", // 7 secret
    "会议编号 2026030112345，版本 3.2.1。", // 8 decoy
    "邮箱 zhangwei@example.cn 仅用于工作。", // 9 pii
    "电话 +86 139-8765-4321 是李娜的。", // 10 pii
    "上海市浦东新区世纪大道100号环球金融中心", // 11 pii
    "",
  ].join("\n"),
  "memory/people/carol.md": [
    "---", // 1
    "sensitive: true", // 2
    "---", // 3
    `Carol's ID ${ID_OK2}, phone 13700001111, card 5500 0000 0000 0004.`, // 4 marked (sensitive)
    "",
  ].join("\n"),
  "MEMORY.md": [
    "# Long-term Memory", // 1
    "", // 2
    "## 2025-01-05 09:00", // 3
    "", // 4
    "- The team uses Postgres 16 for the main database.", // 5 stale
    "", // 6
    "## 2026-03-01 10:00", // 7
    "", // 8
    "- Preferred editor: vim", // 9
    "- Deploys happen on Tuesdays after the standup.", // 10
    "- Deploys happen on Tuesdays after the standup!", // 11 duplicate of 10
    "- Preferred editor: emacs", // 12 contradiction of 9
    "- 用户偏好：深色主题", // 13
    "- 用户偏好：浅色主题", // 14 contradiction of 13
    "- Employee badge EMP-884211 opens the lab.", // 15 user rule (pii)
    "- It is: green", // 16
    "- It is: blue", // 17 contradiction of 16 (no term in common: the key is stop words)
    "- ======", // 18
    "- ======", // 19 duplicate of 18 (no terms at all)
    "",
  ].join("\n"),
};

const EXPECTED: Array<[string, number, AuditFinding["kind"]]> = [
  ["memory/2026-03-01.md", 4, "secret"],
  ["memory/2026-03-01.md", 5, "secret"],
  ["memory/2026-03-01.md", 6, "secret"],
  ["memory/2026-03-01.md", 8, "pii"],
  ["memory/2026-03-01.md", 9, "pii"],
  ["memory/2026-03-01.md", 10, "pii"],
  ["memory/2026-03-01.md", 11, "pii"],
  ["memory/2026-03-01.md", 14, "pii"],
  ["memory/2026-03-01.md", 15, "secret"],
  ["memory/2026-03-02.md", 3, "pii"],
  ["memory/2026-03-02.md", 4, "pii"],
  ["memory/2026-03-02.md", 5, "pii"],
  ["memory/2026-03-02.md", 7, "secret"],
  ["memory/2026-03-02.md", 9, "pii"],
  ["memory/2026-03-02.md", 10, "pii"],
  ["memory/2026-03-02.md", 11, "pii"],
  ["MEMORY.md", 15, "pii"],
];

describe("engram audit on a planted fixture (EN + ZH)", () => {
  let ws: string;
  let findings: AuditFinding[];
  beforeAll(async () => {
    ws = await mkdtemp(join(tmpdir(), "engram-audit-"));
    for (const [path, text] of Object.entries(FILES)) {
      await mkdir(dirname(join(ws, path)), { recursive: true });
      await writeFile(join(ws, path), text);
    }
    // A sealed file whose key nobody has.
    await writeFile(join(ws, "memory/people/dave.md"), "# Dave\n\nsecret notes\n");
    const lost = await generateSealKey();
    const lostKey = await resolveSealKey(ws, { ENGRAM_KEY: lost.fileText.split("\n")[2] });
    if (!lostKey) throw new Error("the generated key did not load");
    await sealFile(ws, "memory/people/dave.md", lostKey);
    const old = new Date("2025-01-05T09:00:00Z");
    await utimes(join(ws, "MEMORY.md"), old, old);
    const config = resolveConfig({
      privacy: {
        audit: { rules: [{ name: "employee-badge", pattern: "EMP-\\d{6}", kind: "pii" }] },
      },
    });
    const report = await auditWorkspace(
      {
        workspace: ws,
        config,
        analyzer: createAnalyzer(config.analyzer),
        tierOf: createTierResolver(DEFAULT_TIER_MAP),
        key: null,
      },
      { now: new Date("2026-03-10T00:00:00Z") },
    );
    findings = report.findings;
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("finds planted secrets and personal data with high precision and recall", () => {
    const found = findings.filter((f) => f.kind === "secret" || f.kind === "pii");
    const key = (p: string, l: number, k: string) => `${p}:${l}:${k}`;
    const expected = new Set(EXPECTED.map(([p, l, k]) => key(p, l, k)));
    const got = new Set(found.map((f) => key(f.path, f.startLine, f.kind)));
    const tp = [...got].filter((g) => expected.has(g)).length;
    const precision = tp / got.size;
    const recall = tp / expected.size;
    console.info(
      `audit fixture: ${tp} true positives, ${got.size - tp} false positives, ${expected.size - tp} missed; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`,
      [...got].filter((g) => !expected.has(g)),
      [...expected].filter((e) => !got.has(e)),
    );
    expect(recall).toBeGreaterThanOrEqual(0.9);
    expect(precision).toBeGreaterThanOrEqual(0.9);
    // Marked content is never reported: the private span, the sensitive file.
    expect(found.some((f) => f.path === "memory/people/carol.md")).toBe(false);
    expect(found.some((f) => f.path === "memory/2026-03-01.md" && f.startLine === 13)).toBe(false);
    // No finding quotes the value whole.
    expect(JSON.stringify(findings)).not.toMatch(
      /Hunter2-Blue|alice\.w@example|4111 1111 1111 1111|Qw!7zX#9/,
    );
    expect(JSON.stringify(findings)).not.toContain(ID_OK);
    for (const f of found) expect(f.cite).toBe(`${f.path}:${f.startLine}`);
  });

  it("finds stale, duplicated and contradicted long-term entries and a sealed file without its key", () => {
    const of = (kind: AuditFinding["kind"]) =>
      findings
        .filter((f) => f.kind === kind)
        .map((f) => `${f.cite} ${f.action}${f.related ? ` ${f.related}` : ""}`);
    expect(of("stale")).toEqual(["MEMORY.md:5 forget"]);
    expect(of("duplicate")).toEqual([
      "MEMORY.md:11 merge MEMORY.md:10",
      "MEMORY.md:19 merge MEMORY.md:18",
    ]);
    expect(of("contradiction")).toEqual([
      "MEMORY.md:12 supersede MEMORY.md:9",
      "MEMORY.md:14 supersede MEMORY.md:13",
      "MEMORY.md:17 supersede MEMORY.md:16",
    ]);
    expect(of("sealed-key-missing")).toEqual([
      expect.stringMatching(/^memory\/people\/dave\.md:1-\d+ provide-key$/),
    ]);
  });

  it("leaves no timing marks behind (secretlint's profiler would keep one per rule per file)", () => {
    const marks = performance.getEntriesByType("mark").map((m) => m.name);
    expect(marks.filter((name) => name.startsWith("@core>"))).toEqual([]);
  });

  it("checks card numbers by Luhn and Chinese resident IDs by their check character", () => {
    expect(luhnValid("4111 1111 1111 1111")).toBe(true);
    expect(luhnValid("4111 1111 1111 1112")).toBe(false);
    expect(chineseIdValid(ID_OK)).toBe(true);
    expect(chineseIdValid(ID_BAD)).toBe(false);
    expect(chineseIdValid(chineseId("11010519900230123"))).toBe(false); // 30 February
  });
});

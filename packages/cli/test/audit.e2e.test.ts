import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

describe("engram audit", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir("engram-audit-");
  });
  afterEach(() => removeDir(ws));

  it("cites path:lines and an action for each finding, never the secret itself", async () => {
    await writeFiles(ws, {
      "MEMORY.md": "# Long-term Memory\n\n- Preferred editor: vim\n- Preferred editor: emacs\n",
      "memory/2026-03-01.md":
        "# 2026-03-01\n\nwifi password: Zebra-Quartz-77\n李娜的手机 13912345678\nnothing else\n",
      "engram.config.json": JSON.stringify({
        privacy: { audit: { rules: [{ name: "badge", pattern: "BADGE-\\d{4}" }] } },
      }),
      "memory/2026-03-02.md": "# 2026-03-02\n\nbadge BADGE-1234 found\n",
    });
    const run = await engram(["audit", "--json", "-w", ws]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    const cites = report.findings.map(
      (f: { cite: string; kind: string; action: string }) => `${f.cite} ${f.kind} ${f.action}`,
    );
    expect(cites).toEqual([
      "MEMORY.md:4 contradiction supersede",
      "memory/2026-03-01.md:3 secret forget",
      "memory/2026-03-01.md:4 pii mark-sensitive",
      "memory/2026-03-02.md:3 pii mark-sensitive",
    ]);
    expect(run.stdout).not.toContain("Zebra-Quartz-77");
    expect(run.stdout).not.toContain("13912345678");
    const text = await engram(["audit", "-w", ws]);
    expect(text.stdout).toContain("4 findings in 3 files");
  });

  it("refuses a user rule that is not a regular expression", async () => {
    await writeFiles(ws, {
      "engram.config.json": JSON.stringify({
        privacy: { audit: { rules: [{ name: "x", pattern: "(" }] } },
      }),
    });
    const run = await engram(["audit", "-w", ws]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/privacy\.audit\.rules/);
  });
});

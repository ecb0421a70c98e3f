import { describe, expect, it } from "vitest";
import { resolveLayout as fromIndex } from "../../src/internal/index.js";
import {
  LAYOUT_PRESET_NAMES,
  LAYOUT_PRESETS,
  layoutPreset,
  resolveLayout,
} from "../../src/workspace/presets.js";
import { createTierResolver, DEFAULT_TIER_MAP } from "../../src/workspace/tiers.js";

describe("layout presets", () => {
  it("place each layout's files in the tier the seeds give them", () => {
    const cases: Record<string, Record<string, string>> = {
      openclaw: {
        "MEMORY.md": "long",
        "memory/2026-01-02.md": "short",
        "memory/archive/2025-12-01.md": "archive",
      },
      "three-tier": {
        "MEMORY.md": "long",
        "memory/2026-01-02.md": "short",
        "memory/short-term/current-session.md": "short",
        "memory/short-term/sessions/s1.md": "short",
        "memory/mid-term/projects/网站/status.md": "mid",
        "memory/long-term/user_profile.md": "long",
        "memory/long-term/knowledge_base/数据库.md": "long",
        "memory/long-term/decisions/2026-01-02_x.md": "long",
        "memory/archive/sessions/2026/01/02/s1.md": "archive",
        "memory/archive/daily/2026-01-02.md": "archive",
      },
      logs: {
        "memory/logs/2025-02-01.md": "short",
        "memory/long-term.md": "long",
        "memory/archive/logs/2025-01-01.md": "archive",
      },
    };
    for (const name of LAYOUT_PRESET_NAMES) {
      const preset = layoutPreset(name);
      const tierOf = createTierResolver(preset.tiers, "long");
      for (const [file, tier] of Object.entries(cases[name] ?? {})) {
        expect([name, file, tierOf(file)]).toEqual([name, file, tier]);
      }
      // The skeleton's Markdown files are memory files of their own layout.
      for (const { path } of preset.skeleton) expect(path).toMatch(/^(MEMORY\.md|memory\/)/);
    }
    expect(LAYOUT_PRESETS.logs).toMatchObject({
      dailyLogDir: "memory/logs",
      longTermFile: "memory/long-term.md",
    });
    expect(LAYOUT_PRESETS["three-tier"].tiers).toEqual(DEFAULT_TIER_MAP);
  });

  it("hands out copies, and names the choices for an unknown layout", () => {
    const copy = layoutPreset("openclaw");
    copy.tiers.short.push("notes/**");
    expect(LAYOUT_PRESETS.openclaw.tiers.short).toEqual(["memory/*.md"]);
    expect(() => layoutPreset("bee")).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        hint: expect.stringContaining("three-tier"),
      }),
    );
  });

  it("resolves a config: layout first, explicit tiers over it, default layout without one", () => {
    expect(fromIndex).toBe(resolveLayout);
    expect(resolveLayout({})).toMatchObject({
      name: null,
      tiers: DEFAULT_TIER_MAP,
      dailyLogDir: "memory",
      longTermFile: "MEMORY.md",
    });
    const logs = resolveLayout({ layout: "logs", tiers: { mid: ["memory/projects/**"] } });
    expect(logs.tiers).toEqual({
      short: ["memory/logs/**"],
      mid: ["memory/projects/**"],
      long: ["memory/long-term.md"],
      archive: ["memory/archive/**", "memory/dreams/**"],
    });
    expect(logs.personalFiles).toEqual([
      "MEMORY.md",
      "memory/long-term.md",
      "memory/long-term/user_profile.md",
    ]);
  });
});

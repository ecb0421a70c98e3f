import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { createTierResolver, DEFAULT_TIER_MAP, type TierMap } from "../../src/workspace/index.js";
import { globMatcher } from "../../src/workspace/tiers.js";

describe("tier resolver", () => {
  const tierOf = createTierResolver(DEFAULT_TIER_MAP);

  it("maps the default layout", () => {
    expect(tierOf("MEMORY.md")).toBe("long");
    expect(tierOf("memory/2026-01-02.md")).toBe("short");
    expect(tierOf("memory/short-term/session.md")).toBe("short");
    expect(tierOf("memory/mid-term/projects/x/status.md")).toBe("mid");
    expect(tierOf("memory/long-term/decisions/db.md")).toBe("long");
    expect(tierOf("memory/archive/2025-01-01.md")).toBe("archive");
    expect(tierOf("memory/mid-term/.hidden/x.md")).toBe("mid"); // dot: true
  });

  it("keeps the shared default read-only", () => {
    expect(() => DEFAULT_TIER_MAP.short.push("x/**")).toThrow(TypeError);
    expect(DEFAULT_TIER_MAP.short).toEqual(["memory/*.md", "memory/short-term/**"]);
  });

  it("uses the fallback for anything unmatched", () => {
    expect(tierOf("/abs/notes/x.md")).toBe("long");
    expect(createTierResolver(DEFAULT_TIER_MAP, "mid")("docs/x.md")).toBe("mid");
    expect(tierOf("./MEMORY.md")).toBe("long");
  });

  it("checks archive first, then short, mid, long", () => {
    const map: TierMap = {
      long: ["notes/**"],
      mid: ["notes/**"],
      short: ["notes/**"],
      archive: ["notes/old/**"],
    };
    const resolve = createTierResolver(map);
    expect(resolve("notes/old/a.md")).toBe("archive");
    expect(resolve("notes/a.md")).toBe("short");
  });

  it("accepts empty tiers and refuses empty globs", () => {
    const resolve = createTierResolver({ short: [], mid: [], long: [], archive: [] }, "mid");
    expect(resolve("notes.md")).toBe("mid");
    // Any MEMORY.md is long-term memory, whatever the globs say (issue 20, item 7).
    expect(resolve("MEMORY.md")).toBe("long");
    expect(resolve("memory/MEMORY.md")).toBe("long");
    expect(
      createTierResolver({ short: ["memory/*.md"], mid: [], long: [], archive: [] })(
        "memory/MEMORY.md",
      ),
    ).toBe("long");
    expect(() => createTierResolver({ short: [""], mid: [], long: [], archive: [] })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID" }),
    );
  });

  it("matches globs exactly as picomatch's own matcher does", () => {
    const globs = [
      ...Object.values(DEFAULT_TIER_MAP).flat(),
      "MEMORY.md",
      "notes/*.{md,MD}",
      "!memory/archive/**",
      "memory/**/status.md",
      "projects/[a-c]*/**",
      "日志/**",
      "memory/?.md",
      "./docs/**",
    ];
    const paths = [
      "MEMORY.md",
      "memory/2026-01-02.md",
      "memory/a.md",
      "memory/.hidden.md",
      "memory/archive/2025/x.md",
      "memory/dreams/2026-11-29.md",
      "memory/mid-term/projects/atlas/status.md",
      "memory/long-term/decisions/db.md",
      "notes/x.MD",
      "notes/sub/x.md",
      "projects/beta/plan.md",
      "projects/delta/plan.md",
      "日志/二月.md",
      "docs/x.md",
      "./docs/x.md",
      "/abs/notes/x.md",
      "MEMORY.md.bak",
    ];
    for (const glob of globs) {
      const theirs = picomatch(glob, { dot: true });
      const ours = globMatcher([glob]);
      for (const path of paths)
        expect([glob, path, ours(path)]).toEqual([glob, path, theirs(path)]);
    }
    const all = picomatch(globs, { dot: true });
    const ours = globMatcher(globs);
    for (const path of paths) expect([path, ours(path)]).toEqual([path, all(path)]);
  });
});

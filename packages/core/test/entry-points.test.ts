// The doors of @engram/core: the main entry is the app API, named one by one and kept small; the
// other entries are declared in package.json the same way, so the build emits each of them.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import * as driver from "../src/driver/index.js";
import * as main from "../src/index.js";
import * as internal from "../src/internal/index.js";

const MAX_MAIN_RUNTIME_NAMES = 120;
const source = (path: string) => readFile(new URL(`../src/${path}`, import.meta.url), "utf8");

describe("@engram/core's main entry", () => {
  it(`exports at most ${MAX_MAIN_RUNTIME_NAMES} runtime names`, () => {
    const names = Object.keys(main);
    expect(names.length).toBeGreaterThan(50);
    expect(names.length).toBeLessThanOrEqual(MAX_MAIN_RUNTIME_NAMES);
  });

  it("names every export (no export *, so nothing joins the app API by accident)", async () => {
    expect(await source("index.ts")).not.toMatch(/^export (type )?\* from/m);
  });

  it("offers what an app needs: the facade, config, errors, agent tools, curation", () => {
    for (const name of [
      "createMemory",
      "Memory",
      "loadConfig",
      "EngramError",
      "isEngramError",
      "EmbeddingError",
      "ModelError",
      "selectEmbedders",
      "createMemoryTools",
      "MEMORY_TOOL_DEFINITIONS",
      "openAiTools",
      "createTierApi",
      "planLifecycle",
      "planConsolidation",
      "sealMemoryFiles",
      "auditMemory",
    ]) {
      expect(main, name).toHaveProperty(name);
    }
  });

  it("leaves engram's own helpers to @engram/core/internal and the driver kit to /driver", () => {
    for (const name of ["writeFileAtomic", "slugify", "sleep", "scanWorkspace", "runSync"]) {
      expect(main, name).not.toHaveProperty(name);
      expect(internal, name).toHaveProperty(name);
    }
    for (const name of ["defineStore", "InMemoryIndex", "classifyHttpFailure", "generateResult"]) {
      expect(main, name).not.toHaveProperty(name);
      expect(driver, name).toHaveProperty(name);
    }
  });

  it("is, name for name, the same binding internal re-exports", () => {
    for (const [name, value] of Object.entries(main)) {
      expect((internal as Record<string, unknown>)[name], name).toBe(value);
    }
  });
});

describe("package.json exports", () => {
  it("declares each door with types and code under dist/, built from a source entry", async () => {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    const doors = Object.entries(pkg.exports as Record<string, unknown>).filter(
      ([, target]) => typeof target === "object",
    );
    expect(doors.map(([door]) => door).sort()).toEqual(
      [".", "./driver", "./internal", "./testing"].sort(),
    );
    for (const [door, target] of doors) {
      const { types, default: code } = target as { types: string; default: string };
      expect(types, door).toBe(code.replace(/\.js$/, ".d.ts"));
      const entry = code.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
      await expect(source(entry), door).resolves.toContain("export");
    }
  });
});

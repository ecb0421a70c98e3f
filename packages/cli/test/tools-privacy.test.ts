// Issue 25, explicit unlock, and issue 20's group scope through the agent tools (core's
// createMemoryTools, which `engram mcp` serves), over a real SQLite index and real sealed files.

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createMemory,
  createMemoryTools,
  generateSealKey,
  type Memory,
  sealMemoryFiles,
} from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const opened: { memory: Memory; dirs: string[] }[] = [];
afterEach(async () => {
  for (const { memory, dirs } of opened.splice(0)) {
    await memory.close();
    for (const d of dirs) await removeDir(d);
  }
});

async function open(unlock: "off" | "required") {
  const dir = await tempDir("engram-tools-privacy-");
  const keys = await tempDir("engram-tools-keys-");
  const keyFile = join(keys, "key.txt");
  await writeFile(keyFile, (await generateSealKey()).fileText, { mode: 0o600 });
  await writeFiles(dir, {
    "MEMORY.md":
      "# Long-term Memory\n\n- Prefers short answers about okapi care.\n- <!-- engram:private -->Okapi vet bills are paid from the joint account<!-- /engram:private --> monthly.\n",
    "memory/long-term/health.md":
      "---\nsensitive: true\n---\n# Health\n\nOkapi-hair allergy; carries an epinephrine pen.\n",
    "memory/long-term/vault.md": "# Vault\n\nThe okapi sanctuary safe code is 5521.\n",
    "memory/2026-03-04.md":
      "# 2026-03-04\n\nVisited the okapi house <!-- engram:private -->with my therapist<!-- /engram:private --> at noon.\n",
  });
  const memory = await createMemory({
    workspace: dir,
    store: sqliteStore(),
    readConfigFile: false,
    config: { privacy: { unlock } },
    env: { ENGRAM_KEY_FILE: keyFile },
  });
  opened.push({ memory, dirs: [dir, keys] });
  await sealMemoryFiles(memory, ["memory/long-term/vault.md"]);
  await memory.sync();
  return memory;
}

describe("agent tools: explicit unlock of sensitive long-term memory", () => {
  it("withholds sensitive long-term content until the host grants an unlock", async () => {
    const memory = await open("required");
    const grants: string[] = [];
    let allow = false;
    const tools = createMemoryTools(memory, {
      grantUnlock: ({ tool }) => {
        grants.push(tool);
        return allow;
      },
    });
    const locked = await tools.call("memory_search", {
      query: "okapi",
      maxResults: 10,
      minScore: 0,
    });
    const byPath = Object.fromEntries(locked.results.map((r) => [r.path, r]));
    expect(byPath["memory/long-term/health.md"]?.snippet).toMatch(
      /^\[withheld: a long-term file marked sensitive/,
    );
    expect(byPath["memory/long-term/vault.md"]?.snippet).toMatch(
      /^\[withheld: a sealed long-term file/,
    );
    expect(byPath["MEMORY.md"]?.snippet).toContain("[private] monthly");
    expect(byPath["MEMORY.md"]?.withheld).toBe("private spans of long-term memory");
    // The daily log is not long-term memory: the main scope sees it whole.
    expect(byPath["memory/2026-03-04.md"]?.snippet).toContain("with my therapist");
    expect(JSON.stringify(locked)).not.toMatch(/epinephrine|5521|joint account/);
    const get = await tools.call("memory_get", { path: "memory/long-term/health.md" });
    expect(get.text).toMatch(/^\[withheld/);

    // The model asks; the host says no: still withheld.
    const refused = await tools.call("memory_get", {
      path: "memory/long-term/vault.md",
      unlock: true,
    });
    expect(refused.withheld).toBe("a sealed long-term file");
    expect(grants).toEqual(["memory_get"]);
    // The host grants: unlocked for the rest of the session, sealed plaintext included.
    allow = true;
    const vault = await tools.call("memory_get", {
      path: "memory/long-term/vault.md",
      unlock: true,
    });
    expect(vault.text).toContain("safe code is 5521");
    expect(vault.withheld).toBeUndefined();
    const after = await tools.call("memory_search", { query: "epinephrine", minScore: 0 });
    expect(after.results[0]?.snippet).toContain("epinephrine pen");
  });

  it("never unlocks without a host that grants it, and shows all with privacy.unlock off", async () => {
    const memory = await open("required");
    const tools = createMemoryTools(memory);
    const asked = await tools.call("memory_get", {
      path: "memory/long-term/health.md",
      unlock: true,
    });
    expect(asked.text).toMatch(/^\[withheld/);
    const off = createMemoryTools(await open("off"));
    const vault = await off.call("memory_get", { path: "memory/long-term/vault.md" });
    expect(vault.text).toContain("safe code is 5521");
  });

  it("group-scope tools search the group scope and refuse what is not shared", async () => {
    const memory = await open("off");
    const tools = createMemoryTools(memory, { scope: "group", unlocked: true });
    const found = await tools.call("memory_search", {
      query: "okapi",
      maxResults: 10,
      minScore: 0,
    });
    expect(found.results.map((r) => r.path)).toEqual(["memory/2026-03-04.md"]);
    expect(found.results[0]?.snippet).toContain("okapi house [private] at noon");
    for (const path of ["MEMORY.md", "memory/long-term/health.md", "memory/long-term/vault.md"]) {
      await expect(tools.call("memory_get", { path })).rejects.toMatchObject({
        code: "PATH_NOT_ALLOWED",
      });
    }
    const log = await tools.call("memory_get", { path: "memory/2026-03-04.md" });
    expect(log.text).toContain("okapi house [private] at noon");
    expect(log.text).not.toContain("therapist");
  });
});

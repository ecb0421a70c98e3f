import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { publicPackages, ROOT } from "./packages.js";

const CHANGESET = join(ROOT, "node_modules", "@changesets", "cli", "bin.js");

/**
 * A dry `changeset version` in a scratch copy of the manifests (package.json files, workspace
 * file, changesets config): what the next release would make of a changeset, without touching
 * the repository.
 */
function versionsAfter(bump: "patch" | "minor", only?: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "engram-release-plan-"));
  scratch.push(dir);
  for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset/config.json"]) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  for (const root of ["packages", "examples"]) {
    if (!existsSync(join(ROOT, root))) continue;
    for (const name of readdirSync(join(ROOT, root))) {
      const manifest = join(ROOT, root, name, "package.json");
      if (!existsSync(manifest)) continue;
      mkdirSync(join(dir, root, name), { recursive: true });
      cpSync(manifest, join(dir, root, name, "package.json"));
    }
  }
  const names = only ? [only] : publicPackages().map((p) => p.name);
  writeFileSync(
    join(dir, ".changeset", "check.md"),
    `---\n${names.map((n) => `"${n}": ${bump}`).join("\n")}\n---\n\nA ${bump} change.\n`,
  );
  execFileSync(process.execPath, [CHANGESET, "version"], { cwd: dir, stdio: "pipe" });
  return Object.fromEntries(
    publicPackages().map((p) => {
      const folder = p.dir.slice(join(ROOT, "packages").length + 1);
      const json = JSON.parse(readFileSync(join(dir, "packages", folder, "package.json"), "utf8"));
      return [p.name, json.version as string];
    }),
  );
}
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const major = (version: string) => Number(version.split(".")[0]);

describe("the changesets release plan (a dry `changeset version`)", () => {
  it("a minor change to every package makes none of them 1.0.0", () => {
    const after = versionsAfter("minor");
    for (const p of publicPackages())
      expect(major(after[p.name] as string), p.name).toBe(major(p.version));
  });

  it("a patch change to every package makes none of them 1.0.0", () => {
    const after = versionsAfter("patch");
    for (const p of publicPackages())
      expect(major(after[p.name] as string), p.name).toBe(major(p.version));
  });

  it("a minor change to one optional driver leaves the CLI's major alone", () => {
    const after = versionsAfter("minor", "@engram/store-lancedb");
    const cli = publicPackages().find((p) => p.name === "@engram/cli");
    expect(major(after["@engram/cli"] as string)).toBe(major(cli?.version as string));
  });
});

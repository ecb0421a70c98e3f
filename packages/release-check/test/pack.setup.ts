import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { pnpm, publicPackages, ROOT } from "./packages.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Package name → path of its packed tarball. */
    tarballs: Record<string, string>;
  }
}

/**
 * Packs every public package once for all test files, with pnpm as a release would (it replaces
 * `workspace:` ranges with the versions being published). Packs what is built: run the build
 * first (`npm test` does).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "engram-tarballs-"));
  const packages = publicPackages();
  pnpm(
    [
      "--recursive",
      ...packages.flatMap((p) => ["--filter", p.name]),
      "pack",
      "--pack-destination",
      dir,
    ],
    ROOT,
  );
  const files = await readdir(dir);
  const tarballs: Record<string, string> = {};
  for (const p of packages) {
    const file = `${p.name.replace(/^@/, "").replace("/", "-")}-${p.version}.tgz`;
    if (!files.includes(file)) throw new Error(`pnpm pack made no ${file} for ${p.name}`);
    tarballs[p.name] = join(dir, file);
  }
  project.provide("tarballs", tarballs);
  return () => rm(dir, { recursive: true, force: true });
}
